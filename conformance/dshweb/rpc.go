package dshweb

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
)

// APIError is a call the host answered with ok:false.
type APIError struct {
	Method  string
	Code    string          `json:"code"`
	Message string          `json:"message"`
	Details json.RawMessage `json:"details"`
}

func (e *APIError) Error() string {
	return fmt.Sprintf("dsh web %s: %s: %s", e.Method, e.Code, e.Message)
}

type rpcCounter struct{ n atomic.Int64 }

func (c *rpcCounter) next() string { return "turnsim-" + strconv.FormatInt(c.n.Add(1), 10) }

// Call posts one client request and decodes its value into out (which may
// be nil). The request carries no Origin header and a loopback Host, which
// is what the host's /api fence admits.
func (h *Host) Call(ctx context.Context, method string, payload, out any) error {
	body, err := json.Marshal(map[string]any{"type": "client-request", "rpcId": h.rpc.next(), "method": method, "payload": payload})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL+"/api/"+method, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.client.Do(req)
	if err != nil {
		select {
		case <-h.exited:
			return fmt.Errorf("%s: %w", method, ErrExited)
		default:
		}
		return fmt.Errorf("dsh web %s: %w", method, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("dsh web %s: reading the answer: %w", method, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("dsh web %s: HTTP %d: %s", method, resp.StatusCode, bytes.TrimSpace(raw))
	}
	var answer struct {
		Result struct {
			OK    bool            `json:"ok"`
			Value json.RawMessage `json:"value"`
			Error *APIError       `json:"error"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &answer); err != nil {
		return fmt.Errorf("dsh web %s: an answer that is not a server response: %.200s", method, raw)
	}
	if !answer.Result.OK {
		if answer.Result.Error == nil {
			return fmt.Errorf("dsh web %s: ok:false without an error: %.200s", method, raw)
		}
		answer.Result.Error.Method = method
		return answer.Result.Error
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(answer.Result.Value, out); err != nil {
		return fmt.Errorf("dsh web %s: its value: %w", method, err)
	}
	return nil
}

// CreateSession creates a session with an agent preset ("" for the
// host's default) and returns its id.
func (h *Host) CreateSession(ctx context.Context, agentPreset string) (string, error) {
	var v struct {
		SessionID string `json:"sessionId"`
	}
	payload := map[string]any{}
	if agentPreset != "" {
		payload["agentPreset"] = agentPreset
	}
	if err := h.Call(ctx, "session.create", payload, &v); err != nil {
		return "", err
	}
	if v.SessionID == "" {
		return "", fmt.Errorf("dsh web session.create: no sessionId in its answer")
	}
	return v.SessionID, nil
}

// Prompt modes: a queued prompt is a new prompt or a follow-up (DSH's
// followup), a steer is a steer.
const (
	ModeQueue = "queue"
	ModeSteer = "steer"
)

// Prompt sends a text prompt to a session.
func (h *Host) Prompt(ctx context.Context, sessionID, mode, text string) error {
	return h.Call(ctx, "session.prompt", map[string]any{"sessionId": sessionID, "mode": mode,
		"content": []map[string]string{{"type": "text", "text": text}}}, nil)
}

// Cancel cancels a session's running turn. DSH's web host cancels with
// cause user and keeps the inbox (0.1.0-rc.8, api-proxy.ts).
func (h *Host) Cancel(ctx context.Context, sessionID string) error {
	return h.Call(ctx, "session.cancel", map[string]any{"sessionId": sessionID}, nil)
}
