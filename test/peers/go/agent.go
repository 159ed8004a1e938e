package main

// The scripted agent executor: what the peer does with each user message is
// chosen by the message's first text part, so the TypeScript tests can drive
// every task lifecycle through any binding.

import (
	"context"
	"iter"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

type commandKind int

const (
	cmdEcho commandKind = iota
	cmdCount
	cmdHold
	cmdInput
	cmdFail
	cmdReject
)

type command struct {
	kind    commandKind
	text    string // echo
	n       int    // count
	everyMs int    // count
}

var (
	echoPattern  = regexp.MustCompile(`(?s)^echo(?:\s+(.*))?$`)
	countPattern = regexp.MustCompile(`^count(?:\s+(\d+))?(?:\s+every\s+(\d+))?$`)
)

func parseCommand(text string) command {
	trimmed := strings.TrimSpace(text)
	if m := echoPattern.FindStringSubmatch(trimmed); m != nil {
		return command{kind: cmdEcho, text: m[1]}
	}
	if m := countPattern.FindStringSubmatch(trimmed); m != nil {
		c := command{kind: cmdCount, n: 3}
		if m[1] != "" {
			c.n, _ = strconv.Atoi(m[1])
		}
		if m[2] != "" {
			c.everyMs, _ = strconv.Atoi(m[2])
		}
		return c
	}
	switch trimmed {
	case "hold":
		return command{kind: cmdHold}
	case "input":
		return command{kind: cmdInput}
	case "fail":
		return command{kind: cmdFail}
	case "reject":
		return command{kind: cmdReject}
	}
	return command{kind: cmdCount, n: 1}
}

func firstText(msg *a2a.Message) string {
	if msg == nil {
		return ""
	}
	for _, p := range msg.Parts {
		if t, ok := p.Content.(a2a.Text); ok {
			return string(t)
		}
	}
	return ""
}

// scriptedAgent implements a2asrv.AgentExecutor. It keeps no state of its
// own: the SDK's task store and execution manager track every task, and a
// cancel is delivered by the SDK into the running execution's event pipe.
type scriptedAgent struct{}

var _ a2asrv.AgentExecutor = scriptedAgent{}

func (scriptedAgent) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		cmd := parseCommand(firstText(ec.Message))

		if cmd.kind == cmdEcho {
			// A direct reply: no task id, only the conversation's context id.
			yield(&a2a.Message{
				ID:        a2a.NewMessageID(),
				ContextID: ec.ContextID,
				Role:      a2a.MessageRoleAgent,
				Parts:     a2a.ContentParts{a2a.NewTextPart(cmd.text)},
			}, nil)
			return
		}

		if cmd.kind == cmdHold {
			if !yield(taskSnapshot(ec, a2a.TaskStateWorking), nil) {
				return
			}
			// Stay live until the SDK ends the execution: Cancel() below
			// writes CANCELED into this execution's pipe, after which the SDK
			// cancels ctx.
			<-ctx.Done()
			return
		}

		// A follow-up message on an existing task continues it rather than
		// pretending it was just submitted.
		first := a2a.TaskStateSubmitted
		if ec.StoredTask != nil {
			first = a2a.TaskStateWorking
		}
		if !yield(taskSnapshot(ec, first), nil) {
			return
		}

		switch cmd.kind {
		case cmdReject:
			yield(statusEvent(ec, a2a.TaskStateRejected, ""), nil)
		case cmdInput:
			if !yield(statusEvent(ec, a2a.TaskStateWorking, ""), nil) {
				return
			}
			yield(statusEvent(ec, a2a.TaskStateInputRequired, "need more"), nil)
		case cmdFail:
			if !yield(statusEvent(ec, a2a.TaskStateWorking, ""), nil) {
				return
			}
			yield(statusEvent(ec, a2a.TaskStateFailed, "failed on purpose"), nil)
		case cmdCount:
			if !yield(statusEvent(ec, a2a.TaskStateWorking, ""), nil) {
				return
			}
			for i := 1; i <= cmd.n; i++ {
				if cmd.everyMs > 0 {
					select {
					case <-time.After(time.Duration(cmd.everyMs) * time.Millisecond):
					case <-ctx.Done():
						return // canceled meanwhile: the SDK already holds the final state
					}
				}
				chunk := &a2a.TaskArtifactUpdateEvent{
					TaskID:    ec.TaskID,
					ContextID: ec.ContextID,
					Artifact: &a2a.Artifact{
						ID:    "result",
						Name:  "result",
						Parts: a2a.ContentParts{a2a.NewTextPart("chunk-" + strconv.Itoa(i))},
					},
					Append:    i > 1,
					LastChunk: i == cmd.n,
				}
				if !yield(chunk, nil) {
					return
				}
			}
			yield(statusEvent(ec, a2a.TaskStateCompleted, ""), nil)
		}
	}
}

// Cancel is called by the SDK for any non-final task: for a running execution
// (hold, a paced count) the event goes into that execution's pipe; for a task
// parked in INPUT_REQUIRED the SDK processes it on its own.
func (scriptedAgent) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(statusEvent(ec, a2a.TaskStateCanceled, ""), nil)
	}
}

func statusEvent(ec *a2asrv.ExecutorContext, state a2a.TaskState, text string) *a2a.TaskStatusUpdateEvent {
	var msg *a2a.Message
	if text != "" {
		msg = a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(text))
	}
	return a2a.NewStatusUpdateEvent(ec, state, msg)
}

// taskSnapshot is the Task event that opens an execution: a new task with the
// user's message as history, or the stored task (whose history the SDK has
// already extended with the new message) in its new state.
func taskSnapshot(ec *a2asrv.ExecutorContext, state a2a.TaskState) *a2a.Task {
	now := time.Now()
	var task *a2a.Task
	if ec.StoredTask != nil {
		copied := *ec.StoredTask
		task = &copied
		// The SDK itself moves a replaced status message into the history
		// (as it does for status updates); keep it before the new user message.
		if prev := copied.Status.Message; prev != nil {
			history := slices.Clone(copied.History)
			at := len(history)
			if at > 0 && ec.Message != nil && history[at-1].ID == ec.Message.ID {
				at--
			}
			task.History = slices.Insert(history, at, prev)
		}
	} else {
		task = a2a.NewSubmittedTask(ec, ec.Message)
	}
	task.Status = a2a.TaskStatus{State: state, Timestamp: &now}
	return task
}
