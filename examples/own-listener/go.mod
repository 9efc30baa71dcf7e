module example.com/ownlistener

go 1.26.8

require github.com/turnsim/turnsim v0.0.0

require (
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
)

replace github.com/turnsim/turnsim => ../..
