module github.com/turnsim/turnsim

go 1.26.8

require (
	github.com/benbjohnson/clock v1.3.5
	github.com/google/go-cmp v0.7.0
	github.com/klauspost/compress v1.20.4
	github.com/leanovate/gopter v0.2.11
)

require github.com/coder/websocket v1.8.15
