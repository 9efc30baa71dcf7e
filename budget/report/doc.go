// Package report presents budget reports (package budget measures them):
// WritePage draws policies' reports side by side on one self-contained
// HTML page — the bounds' verdicts, each policy's parameters, the
// environment, exhaustion and its interval on one axis for all, histograms
// of recovery time and attempts per turn, and over a horizon the
// incidents on a timeline above each policy's failed turns — and Clock and
// Span write virtual time as the page and simrun budget's text report do.
package report
