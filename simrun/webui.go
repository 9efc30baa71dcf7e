package simrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/turnsim/turnsim/oracle"

	"github.com/turnsim/turnsim/conformance"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
)

const webuiUsage = `usage: simrun webui --host URL --log FILE [--title T] [--out DIR]

Opens a session in the Web UI of a running DSH web host ('dsh web', by
hand or otherwise) in headless Chromium, reads the recovery rows it shows
(retry rows, turn-error rows), and holds them to what turnsim's view
derives from the session's log FILE (DSH's session.jsonl) under DSH
0.1.0-rc.8's turn-error rule, and to the rendering invariants (every
error turn shows its error, retry counts, AUTH text masked). The session
is the one whose sidebar row reads --title (the first one without it). A
screenshot, the rows (JSON) and the chat pane (HTML) are written to --out.

Exit status: 0 the UI agrees and breaks no invariant, 1 a difference or a
finding about DSH's UI, 2 bad usage or input, 3 the page could not be read.

flags:
`

func runWebUI(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("webui", stderr, webuiUsage)
	host := fs.String("host", "", "the web host's address, as 'dsh web' prints it (http://127.0.0.1:PORT)")
	logPath := fs.String("log", "", "the session's log (DSH's session.jsonl)")
	title := fs.String("title", "", "the session's title in the sidebar (default: the first session)")
	out := fs.String("out", "webui", "where the screenshot, rows and chat pane are written")
	rest, err := parseInterspersed(fs, args)
	if errors.Is(err, errHelp) {
		return exitClean
	}
	if err != nil {
		return exitUsage
	}
	if *host == "" || *logPath == "" || len(rest) > 0 {
		fmt.Fprint(stderr, "simrun webui: give --host URL and --log FILE, and no other arguments\n\n")
		fs.Usage()
		return exitUsage
	}
	rd, ok := needRealDSH("webui", stderr)
	if !ok {
		return exitUsage
	}
	_, events, err := session.ReadFile(*logPath, session.ReadOptions{})
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", *logPath, err)
		return exitUsage
	}
	chromium := rd.Chromium()
	if chromium == "" {
		fmt.Fprintln(stderr, "simrun webui: no Chromium on PATH (apt-get install -y chromium)")
		return exitUsage
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(stderr, "simrun webui: %v\n", err)
		return exitUsage
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rows, err := rd.ReadSession(ctx, chromium, *out, *host, *title)
	if err != nil {
		fmt.Fprintf(stderr, "simrun webui: %v\n", err)
		return exitInternal
	}
	shot := filepath.Join(*out, "ui.png")
	data, _ := json.MarshalIndent(conformance.Render{BeforeSeq: -1, Rows: rows, Screenshot: "ui.png"}, "", "  ")
	if err := writeAtomically(filepath.Join(*out, "ui.json"), func(w io.Writer) error { _, err := w.Write(append(data, '\n')); return err }); err != nil {
		fmt.Fprintf(stderr, "simrun webui: %v\n", err)
		return exitInternal
	}
	ui := view.RowLines(rows)
	tv := view.RowLines(view.Rows(view.DeriveWith(events, view.Options{TurnErrors: conformance.UIRule}), false))
	for _, l := range ui {
		fmt.Fprintf(stdout, "  %s\n", l)
	}
	verdict := "the view agrees"
	diff := conformance.LineDiff(ui, tv, 2)
	if diff != "" {
		verdict = "the view differs"
		fmt.Fprintf(stdout, "the Web UI differs from turnsim's view of the log (-dsh ui +turnsim view):\n%s", indent(diff))
	}
	vs := oracle.RenderViolations(events, rows, conformance.WebUI)
	for _, v := range vs {
		fmt.Fprintf(stdout, "DSH's Web UI breaks %s\n", formatViolation(v))
	}
	fmt.Fprintf(stdout, "%d rows, %s, %d findings (screenshot %s)\n", len(ui), verdict, len(vs), shot)
	if diff != "" || len(vs) > 0 {
		return exitViolation
	}
	return exitClean
}
