// Package scenarios holds turnsim's named scenario files (*.json here) with
// their golden logs and views (testdata/). Its tests run every scenario in
// the deterministic world and compare; docs/scenarios.md gives the
// format.
package scenarios
