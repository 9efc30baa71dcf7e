module github.com/turnsim/turnsim

go 1.26.8

require (
	github.com/benbjohnson/clock v1.3.5
	github.com/google/go-cmp v0.7.0
	github.com/klauspost/compress v1.20.4
	github.com/leanovate/gopter v0.2.11
)

require (
	github.com/chromedp/chromedp v0.23.0
	github.com/coder/websocket v1.8.15
)

require (
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
)
