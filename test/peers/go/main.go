// Command peer is the Go test peer of a2a-connect: a small scripted A2A agent
// served by the official Go SDK, github.com/a2aproject/a2a-go/v2 v2.3.1, on
// every binding that SDK offers (JSON-RPC, HTTP+JSON and gRPC for A2A 1.0,
// and its 0.3 compatibility surfaces). The TypeScript interop tests start it
// as a child process and talk to it with the a2a-connect client.
//
//	peer --port HTTP_PORT --grpc-port GRPC_PORT [--versions 1.0,0.3]
//
// It prints "ready" on stdout once both ports listen, logs to stderr, and
// exits on SIGTERM/SIGINT or when stdin reaches EOF.
//
// The cards are served unsigned: a2a-go v2.3.1 has no agent card signer.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	grpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
)

const (
	host = "127.0.0.1"

	jsonRPCPath = "/a2a/jsonrpc"
	restPath    = "/a2a/rest"
	// The SDK serves 0.3 with separate handlers (it does not route by
	// method name or A2A-Version), so the 0.3 surfaces get paths of their own.
	jsonRPCPathV03 = "/a2a/0.3/jsonrpc"
	restPathV03    = "/a2a/0.3/rest"

	v10 a2a.ProtocolVersion = "1.0"
	v03                     = a2av0.Version // "0.3"
)

func main() {
	if err := run(); err != nil {
		slog.Error("peer failed", "error", err)
		os.Exit(1)
	}
}

func run() error {
	httpPort := flag.Int("port", 0, "HTTP port on 127.0.0.1 (required)")
	grpcPort := flag.Int("grpc-port", 0, "gRPC port on 127.0.0.1 (required)")
	versionsFlag := flag.String("versions", "1.0,0.3", "protocol versions to serve, comma-separated, newest first")
	flag.Parse()

	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, nil)))

	if *httpPort <= 0 || *grpcPort <= 0 {
		return errors.New("--port and --grpc-port are both required")
	}
	versions, err := parseVersions(*versionsFlag)
	if err != nil {
		return err
	}

	origin := "http://" + net.JoinHostPort(host, strconv.Itoa(*httpPort))
	grpcAddr := net.JoinHostPort(host, strconv.Itoa(*grpcPort))
	card := publicCard(origin, grpcAddr, versions)
	extended := extendedCard(card)

	handler := a2asrv.NewHandler(
		scriptedAgent{},
		a2asrv.WithLogger(slog.Default()),
		a2asrv.WithCapabilityChecks(&card.Capabilities),
		a2asrv.WithExtendedAgentCard(extended),
		// The SDK's default in-memory store scopes tasks by user name and
		// refuses ListTasks (UNAUTHENTICATED) to the anonymous callers the
		// tests are; one shared owner lets every caller see every task.
		a2asrv.WithTaskStore(taskstore.NewInMemory(&taskstore.InMemoryStoreConfig{
			Authenticator: func(context.Context) (string, error) { return "shared", nil },
		})),
		// A short timeout: the SDK posts notifications inline with event
		// processing, so an unresponsive receiver must not stall a task for long.
		a2asrv.WithPushNotifications(push.NewInMemoryStore(), push.NewHTTPPushSender(&push.HTTPSenderConfig{Timeout: 5 * time.Second})),
	)

	mux := http.NewServeMux()
	if slices.Contains(versions, v03) {
		// The SDK's compat producer writes one card that both 0.3 clients
		// (url, preferredTransport, additionalInterfaces, protocolVersion) and
		// 1.0 clients (supportedInterfaces) can read.
		mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewAgentCardHandler(a2av0.NewStaticAgentCardProducer(card)))
	} else {
		mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	}
	if slices.Contains(versions, v10) {
		mux.Handle(jsonRPCPath, a2asrv.NewJSONRPCHandler(handler))
		mux.Handle(restPath+"/", http.StripPrefix(restPath, a2asrv.NewRESTHandler(handler)))
	}
	if slices.Contains(versions, v03) {
		mux.Handle(jsonRPCPathV03, a2av0.NewJSONRPCHandler(handler))
		restV03 := a2av0.NewRESTHandler(handler)
		mux.Handle(restPathV03+"/", http.StripPrefix(restPathV03, restV03))
		// 0.3 clients following the 0.3 spec put every route under /v1 of the
		// interface URL; the SDK's handler (and its own 0.3 client) use none.
		mux.Handle(restPathV03+"/v1/", http.StripPrefix(restPathV03+"/v1", restV03))
	}

	grpcServer := grpc.NewServer()
	if slices.Contains(versions, v10) {
		grpcv1.NewHandler(handler).RegisterWith(grpcServer) // lf.a2a.v1.A2AService
	}
	if slices.Contains(versions, v03) {
		grpcv0.NewHandler(handler).RegisterWith(grpcServer) // a2a.v1.A2AService
	}

	// Before anything can print "ready": a signal sent right after it must
	// reach this handler, not the default one.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)

	httpListener, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(*httpPort)))
	if err != nil {
		return fmt.Errorf("listen HTTP: %w", err)
	}
	grpcListener, err := net.Listen("tcp", grpcAddr)
	if err != nil {
		_ = httpListener.Close()
		return fmt.Errorf("listen gRPC: %w", err)
	}

	httpServer := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	failed := make(chan error, 2)
	go func() {
		if err := httpServer.Serve(httpListener); err != nil && !errors.Is(err, http.ErrServerClosed) {
			failed <- fmt.Errorf("HTTP server: %w", err)
		}
	}()
	go func() {
		if err := grpcServer.Serve(grpcListener); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			failed <- fmt.Errorf("gRPC server: %w", err)
		}
	}()

	slog.Info("peer listening", "http", origin, "grpc", grpcAddr, "versions", versions)
	fmt.Println("ready")

	// A parent that dies closes our stdin: stop then too, so no peer lingers.
	stdinClosed := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(stdinClosed)
	}()

	var runErr error
	select {
	case sig := <-signals:
		slog.Info("stopping", "signal", sig.String())
	case <-stdinClosed:
		slog.Info("stopping", "reason", "stdin closed")
	case runErr = <-failed:
	}

	// Close rather than drain: open SSE streams and held tasks would
	// otherwise keep a graceful shutdown waiting.
	_ = httpServer.Close()
	grpcServer.Stop()
	return runErr
}

func parseVersions(list string) ([]a2a.ProtocolVersion, error) {
	var out []a2a.ProtocolVersion
	for _, item := range strings.Split(list, ",") {
		v := a2a.ProtocolVersion(strings.TrimSpace(item))
		if v != v10 && v != v03 {
			return nil, fmt.Errorf("unsupported version %q in --versions (this SDK serves 1.0 and 0.3)", v)
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out, nil
}

func publicCard(origin, grpcAddr string, versions []a2a.ProtocolVersion) *a2a.AgentCard {
	var interfaces []*a2a.AgentInterface
	for _, v := range versions {
		jsonRPC, rest := origin+jsonRPCPath, origin+restPath
		if v == v03 {
			jsonRPC, rest = origin+jsonRPCPathV03, origin+restPathV03
		}
		interfaces = append(interfaces,
			&a2a.AgentInterface{URL: jsonRPC, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: v},
			&a2a.AgentInterface{URL: rest, ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: v},
			// Plain host:port: the SDK's gRPC client hands this to grpc.NewClient as is.
			&a2a.AgentInterface{URL: grpcAddr, ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: v},
		)
	}
	return &a2a.AgentCard{
		Name:                "a2a-connect go peer",
		Description:         "Scripted A2A agent served by the official Go SDK (a2a-go v2.3.1), for a2a-connect's interop tests.",
		Version:             "1.0.0",
		Provider:            &a2a.AgentProvider{Org: "a2a-connect", URL: origin},
		SupportedInterfaces: interfaces,
		Capabilities: a2a.AgentCapabilities{
			Streaming:         true,
			PushNotifications: true,
			ExtendedAgentCard: true,
		},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills: []a2a.AgentSkill{
			{
				ID:          "echo",
				Name:        "Echo",
				Description: "Replies with a direct message repeating the text after `echo`.",
				Tags:        []string{"test", "message"},
				Examples:    []string{"echo hello"},
			},
			{
				ID:          "count",
				Name:        "Count",
				Description: "Runs a task that streams n chunks of one artifact, then completes.",
				Tags:        []string{"test", "task", "streaming"},
				Examples:    []string{"count 3", "count 2 every 100"},
			},
			{
				ID:          "lifecycle",
				Name:        "Task lifecycle",
				Description: "`hold` waits for cancel; `input`, `fail` and `reject` end in those states.",
				Tags:        []string{"test", "task"},
				Examples:    []string{"hold", "input", "fail", "reject"},
			},
		},
	}
}

// extendedCard is what GetExtendedAgentCard returns to every caller: the
// public card with one more skill.
func extendedCard(public *a2a.AgentCard) *a2a.AgentCard {
	card := *public
	card.Description = public.Description + " Extended card."
	card.Skills = append(slices.Clone(public.Skills), a2a.AgentSkill{
		ID:          "secret-skill",
		Name:        "Secret skill",
		Description: "Listed only on the extended agent card.",
		Tags:        []string{"test", "extended"},
	})
	return &card
}
