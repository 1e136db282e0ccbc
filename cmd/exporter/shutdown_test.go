package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// Stopping the exporter (SIGTERM ends run's context) closes both sides of
// a relayed runner connection with 1001 Going Away, and run returns nil,
// so the process exits 0.
func TestStopClosesProbeRelaysGoingAway(t *testing.T) {
	broker, conns := scriptedBroker(t)
	listen := freeAddr(t)
	cfg, err := parseConfig(nil, []string{"EXPORTER_DISCOVERY=false", "EXPORTER_LISTEN=127.0.0.1:0",
		"PROBE_LISTEN=" + listen, "PROBE_UPSTREAM=" + broker.URL, "PROBE_NAME=runner-1"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready, done := make(chan string, 1), make(chan error, 1)
	go func() { done <- run(ctx, cfg, slog.New(slog.DiscardHandler), ready) }()
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("exporter did not start")
	}
	runner, _, err := websocket.DefaultDialer.Dial("ws://"+listen+"/runners/_ws?id=r1", http.Header{"Authorization": {"Bearer g"}})
	if err != nil {
		t.Fatal(err)
	}
	defer runner.Close()
	upstream := <-conns
	defer upstream.Close()
	relay(t, upstream, runner, `{"type":"broker:inforequest"}`) // the relay is up
	cancel()
	for name, c := range map[string]*websocket.Conn{"runner": runner, "broker": upstream} {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, _, err := c.ReadMessage()
		if ce, ok := err.(*websocket.CloseError); !ok || ce.Code != websocket.CloseGoingAway {
			t.Errorf("%s got %v, want close 1001", name, err)
		}
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after its context ended")
	}
}

// A listen address already taken fails run with its error once the probes
// are up, rather than leaving run waiting on their goroutines.
func TestRunFailsWhenTheListenAddressIsTaken(t *testing.T) {
	broker, _ := scriptedBroker(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	cfg, err := parseConfig(nil, []string{"EXPORTER_DISCOVERY=false", "EXPORTER_LISTEN=" + taken.Addr().String(),
		"PROBE_LISTEN=" + freeAddr(t), "PROBE_UPSTREAM=" + broker.URL, "PROBE_NAME=runner-1"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- run(context.Background(), cfg, slog.New(slog.DiscardHandler), nil) }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("run on a taken address returned nil")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run on a taken address did not return")
	}
}
