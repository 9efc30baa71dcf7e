// Package realdsh runs the real DSH (installed from the npm registry by
// scripts/conformance.sh) against turnsim's fake provider on loopback,
// through its web host: it starts the host, drives a session by a
// scenario's inputs and world actions, and reads DSH's own Web UI in
// headless Chromium. What it leaves in a run's folder (the session log,
// the drive record, the rows the UI showed) is read and judged by package
// conformance, which needs neither a browser nor a web socket.
package realdsh
