// Package view derives DSH's Web conversation nodes for request recovery
// (docs/dsh.md#web-view): a turn-error node for every turn that ended with
// an error, and a model-retry node for every llm-retry chain.
//
// [Derive] is a pure function of the events it is given. Given a tail window
// (a suffix of a log), it derives what DSH's Web view shows for that window:
// a turn-error node from its turn/end alone, and no model-retry node for a
// chain whose first llm/retry lies outside the window.
package view
