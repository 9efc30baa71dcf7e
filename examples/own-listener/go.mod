module example.com/ownlistener

go 1.26.8

require github.com/turnsim/turnsim v0.0.0

require (
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/chromedp/chromedp v0.23.0 // indirect
	github.com/coder/websocket v1.8.15 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
	github.com/leanovate/gopter v0.2.11 // indirect
)

replace github.com/turnsim/turnsim => ../..
