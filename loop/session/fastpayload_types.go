package session

// The readers of the nested payload types, for decodeFast.

func (d *fastDecoder) inboxSpliced(p *InboxSpliced) bool {
	return d.object(inboxKeys, func(k []byte) bool {
		switch string(k) {
		case "target":
			return d.str(&p.Target)
		case "start":
			return d.int(&p.Start)
		case "removedCount":
			return d.int(&p.RemovedCount)
		case "outcome":
			return d.str(&p.Outcome)
		case "inserted":
			return listOf(d, &p.Inserted, d.userMessage)
		}
		return false
	})
}

// listOf reads an array of T, each element with read, as encoding/json
// reads one into a []T: null is a nil slice, [] an empty one.
func listOf[T any](d *fastDecoder, out *[]T, read func(*T) bool) bool {
	if d.null() {
		*out = nil
		return true
	}
	if d.i >= len(d.b) || d.b[d.i] != '[' {
		return false
	}
	d.i++
	// Into the room *out has (a packed row's lists, reused from row to
	// row), else a new list: [] is an empty list, not nil.
	list := (*out)[:0]
	if list == nil {
		list = []T{}
	}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		*out = list
		return true
	}
	if d.check != nil {
		// The elements are a level deeper than the list.
		if d.depth++; d.depth > d.check.maxDepth {
			return false
		}
		defer func() { d.depth-- }()
	}
	for {
		d.space()
		// Read in place: a value read into and then appended escaped
		// to the heap, an allocation per element.
		var zero T
		list = append(list, zero)
		if !read(&list[len(list)-1]) {
			return false
		}
		d.space()
		if d.i >= len(d.b) {
			return false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			*out = list
			return true
		default:
			return false
		}
	}
}

func (d *fastDecoder) userMessage(m *UserMessage) bool {
	return d.object(userMessageKeys, func(k []byte) bool {
		switch string(k) {
		case "content":
			return d.raw(&m.Content)
		case "source":
			return d.source(&m.Source)
		case "role":
			return d.str(&m.Role)
		case "id":
			return d.str(&m.ID)
		}
		return false
	})
}

func (d *fastDecoder) source(s *Source) bool {
	return d.object(sourceKeys, func(k []byte) bool {
		switch string(k) {
		case "kind":
			return d.str(&s.Kind)
		case "plugin":
			return d.str(&s.Plugin)
		case "form":
			return d.str(&s.Form)
		case "sections":
			return d.raw(&s.Sections)
		case "compactionId":
			return d.str(&s.CompactionID)
		case "callId":
			return d.str(&s.CallID)
		case "provider":
			return d.str(&s.Provider)
		case "model":
			return d.str(&s.Model)
		case "replayState":
			return d.raw(&s.ReplayState)
		}
		return false
	})
}

func (d *fastDecoder) assistantMessage(p *AssistantMessage) bool {
	return d.object(assistantKeys, func(k []byte) bool {
		switch string(k) {
		case "turn":
			return d.int(&p.Turn)
		case "step":
			return d.int(&p.Step)
		case "usage":
			return d.raw(&p.Usage)
		case "interrupted":
			return d.bool(&p.Interrupted)
		case "message":
			return d.object(assistantBodyKeys, func(k []byte) bool {
				m := &p.Message
				switch string(k) {
				case "role":
					return d.str(&m.Role)
				case "content":
					return d.raw(&m.Content)
				case "source":
					return d.source(&m.Source)
				case "id":
					return d.str(&m.ID)
				}
				return false
			})
		}
		return false
	})
}

func (d *fastDecoder) streamChunk(c *StreamChunk) bool {
	return d.object(chunkKeys, func(k []byte) bool {
		switch string(k) {
		case "type":
			return d.str(&c.Type)
		case "index":
			return d.int(&c.Index)
		case "blockType":
			return d.str(&c.BlockType)
		case "text":
			return d.str(&c.Text)
		case "id":
			return d.str(&c.ID)
		case "name":
			return nullable(d, &c.Name, d.str)
		case "argumentsDelta":
			return d.str(&c.ArgumentsDelta)
		case "block":
			return d.raw(&c.Block)
		case "usage":
			return d.raw(&c.Usage)
		case "replayState":
			return d.raw(&c.ReplayState)
		case "reason":
			return nullable(d, &c.Reason, func(r *FinishReason) bool {
				return d.object(finishKeys, func(k []byte) bool {
					switch string(k) {
					case "kind":
						return d.str(&r.Kind)
					case "failure":
						return nullable(d, &r.Failure, d.failure)
					}
					return false
				})
			})
		}
		return false
	})
}

func (d *fastDecoder) failure(f *LlmFailure) bool {
	return d.object(failureKeys, func(k []byte) bool {
		switch string(k) {
		case "message":
			return d.str(&f.Message)
		case "code":
			return d.str(&f.Code)
		case "status":
			return d.intPtr(&f.Status)
		case "requestId":
			return d.str(&f.RequestID)
		case "providerRetryAfterMs":
			return nullable(d, &f.ProviderRetryAfterMs, d.float)
		}
		return false
	})
}

func (d *fastDecoder) turnEndReason(r *TurnEndReason) bool {
	return d.object(reasonKeys, func(k []byte) bool {
		switch string(k) {
		case "kind":
			return d.str(&r.Kind)
		case "error":
			return nullable(d, &r.Error, d.failure)
		case "reason":
			return nullable(d, &r.Cause, func(c *Cause) bool {
				return d.object(causeKeys, func(k []byte) bool {
					switch string(k) {
					case "kind":
						return d.str(&c.Kind)
					case "reason":
						return d.str(&c.Reason)
					}
					return false
				})
			})
		}
		return false
	})
}

func (d *fastDecoder) toolResult(p *ToolResult) bool {
	return d.object(toolResultKeys, func(k []byte) bool {
		switch string(k) {
		case "turn":
			return d.int(&p.Turn)
		case "step":
			return d.int(&p.Step)
		case "callId":
			return d.str(&p.LegacyCallID)
		case "message":
			return nullable(d, &p.Message, d.userMessage)
		case "error":
			return nullable(d, &p.Error, func(e *ToolError) bool {
				return d.object(toolErrorKeys, func(k []byte) bool {
					switch string(k) {
					case "name":
						return d.str(&e.Name)
					case "code":
						return d.str(&e.Code)
					}
					return false
				})
			})
		}
		return false
	})
}

func (d *fastDecoder) requestHeader(p *RequestHeader) bool {
	return d.object(headerKeys, func(k []byte) bool {
		switch string(k) {
		case "reason":
			return d.str(&p.Reason)
		case "header":
			return d.object(headerBodyKeys, func(k []byte) bool {
				return string(k) == "config" && d.object(configKeys, func(k []byte) bool {
					c := &p.Header.Config
					switch string(k) {
					case "provider":
						return d.str(&c.Provider)
					case "model":
						return d.str(&c.Model)
					}
					return false
				})
			})
		}
		return false
	})
}

func (d *fastDecoder) llmRetry(p *LLMRetry) bool {
	return d.object(llmRetryKeys, func(k []byte) bool {
		switch string(k) {
		case "retryId":
			return d.str(&p.RetryID)
		case "turn":
			return d.int(&p.Turn)
		case "step":
			return d.int(&p.Step)
		case "provider":
			return d.str(&p.Provider)
		case "mode":
			return d.str(&p.Mode)
		case "policyKey":
			return d.str(&p.PolicyKey)
		case "retry":
			return d.int(&p.Retry)
		case "maxRetries":
			return d.intPtr(&p.MaxRetries)
		case "delayMs":
			return d.float(&p.DelayMs)
		case "failure":
			return d.failure(&p.Failure)
		}
		return false
	})
}

var packedKeys = []string{"turn", "step", "index", "id", "name", "dt", "texts", "args"}

// decodePackedFast reads a packed row's data as encoding/json reads it
// with unknown fields refused, or reports false (an unknown field among
// them, whose error is encoding/json's to give).
func decodePackedFast(data []byte, p *packedData) bool {
	d := fastDecoder{b: data}
	return d.packed(p) && d.end()
}

// decodePackedChecked is decodePackedFast, checking data as the strict
// check would (strict.go): the data of a line's member, at depth 1.
func decodePackedChecked(data []byte, p *packedData, c *checking) bool {
	d := fastDecoder{b: data, check: c, depth: 1}
	return d.packed(p) && d.end()
}

// packed reads a packed row's data, from d.i to the end of the value.
func (d *fastDecoder) packed(p *packedData) bool {
	ok := d.object(packedKeys, func(k []byte) bool {
		switch string(k) {
		case "turn":
			return d.int(&p.Turn)
		case "step":
			return d.int(&p.Step)
		case "index":
			return d.int(&p.Index)
		case "id":
			return d.str(&p.ID)
		case "name":
			return nullable(d, &p.Name, d.str)
		case "dt":
			return listOf(d, &p.Dt, d.int64)
		case "texts":
			return listOf(d, &p.Texts, d.str)
		case "args":
			return listOf(d, &p.Args, d.str)
		}
		return false
	})
	// A key skipped as unknown is an error to encoding/json here.
	return ok && d.skipped == 0
}
