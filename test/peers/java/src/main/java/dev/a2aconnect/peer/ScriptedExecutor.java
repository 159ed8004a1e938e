package dev.a2aconnect.peer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.a2a.server.agentexecution.AgentExecutor;
import io.a2a.server.agentexecution.RequestContext;
import io.a2a.server.events.EventQueue;
import io.a2a.server.tasks.TaskUpdater;
import io.a2a.spec.JSONRPCError;
import io.a2a.spec.Message;
import io.a2a.spec.Part;
import io.a2a.spec.Task;
import io.a2a.spec.TaskState;
import io.a2a.spec.TaskStatus;
import io.a2a.spec.TextPart;

/**
 * The scripted agent every peer of the interop suite serves (see the top of
 * demo/agent.ts), run by the first text part of the user message:
 * echo TEXT | count [n] [every ms] | hold | input | fail | reject; anything
 * else runs like "count 1".
 */
final class ScriptedExecutor implements AgentExecutor {
    // Anchored, as in every peer: "counting" is not "count".
    private static final Pattern ECHO = Pattern.compile("^echo(?:\\s+([\\s\\S]*))?$");
    private static final Pattern COUNT = Pattern.compile("^count(?:\\s+(\\d+))?(?:\\s+every\\s+(\\d+))?$");
    /** A held task waits at most this long for its cancel, so no thread is kept for good. */
    private static final long HOLD_MINUTES = 10;

    /** The held tasks, each released by its cancel. */
    private final Map<String, CountDownLatch> held = new ConcurrentHashMap<>();

    @Override
    public void execute(RequestContext context, EventQueue queue) throws JSONRPCError {
        String text = firstText(context.getMessage()).strip();

        Matcher echo = ECHO.matcher(text);
        if (echo.matches()) {
            // A direct reply: a Message and no task, which ends the request.
            queue.enqueueEvent(new Message.Builder()
                    .role(Message.Role.AGENT)
                    .messageId(UUID.randomUUID().toString())
                    .contextId(context.getContextId())
                    .parts(new TextPart(echo.group(1) == null ? "" : echo.group(1)))
                    .build());
            return;
        }

        TaskUpdater updater = new TaskUpdater(context, queue);
        boolean hold = text.equals("hold");
        // The task as this turn starts, so that a stream's first event is the task itself.
        queue.enqueueEvent(snapshot(context, hold));

        switch (text) {
            case "hold" -> {
                CountDownLatch released = new CountDownLatch(1);
                held.put(context.getTaskId(), released);
                try {
                    // cancel() publishes CANCELED; this turn then ends without another event.
                    released.await(HOLD_MINUTES, TimeUnit.MINUTES);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    held.remove(context.getTaskId());
                }
                return;
            }
            case "reject" -> {
                updater.reject();
                return;
            }
            case "input" -> {
                updater.startWork();
                updater.requiresInput(agentText(updater, "need more"));
                return;
            }
            case "fail" -> {
                updater.startWork();
                updater.fail(agentText(updater, "failed on purpose"));
                return;
            }
            default -> {
                // Handled below.
            }
        }

        Matcher count = COUNT.matcher(text);
        int n = 1;
        long everyMs = 0;
        if (count.matches()) {
            n = count.group(1) == null ? 3 : Integer.parseInt(count.group(1));
            everyMs = count.group(2) == null ? 0 : Long.parseLong(count.group(2));
        }
        updater.startWork();
        for (int i = 1; i <= n; i++) {
            if (everyMs > 0) {
                try {
                    Thread.sleep(everyMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            updater.addArtifact(List.of(new TextPart("chunk-" + i)), "result", "result", null, i > 1, i == n);
        }
        updater.complete();
    }

    @Override
    public void cancel(RequestContext context, EventQueue queue) throws JSONRPCError {
        // Called for any live task (held, or waiting in INPUT_REQUIRED).
        new TaskUpdater(context, queue).cancel();
        CountDownLatch released = held.get(context.getTaskId());
        if (released != null) released.countDown();
    }

    /** Ends every held turn, so that the SDK's executor stops at once when the peer does. */
    void releaseAll() {
        held.values().forEach(CountDownLatch::countDown);
    }

    /**
     * The task as the first event of a turn: a new task SUBMITTED (WORKING for
     * hold) with the user's message; a follow-up continues its stored task,
     * WORKING, its history holding the new message once.
     */
    private static Task snapshot(RequestContext context, boolean working) {
        Message message = context.getMessage();
        Task existing = context.getTask();
        if (existing != null) {
            List<Message> history = new ArrayList<>(existing.getHistory() == null ? List.of() : existing.getHistory());
            if (message != null && history.stream().noneMatch(m -> m.getMessageId().equals(message.getMessageId()))) {
                history.add(message);
            }
            return new Task.Builder(existing).status(new TaskStatus(TaskState.WORKING)).history(history).build();
        }
        return new Task.Builder()
                .id(context.getTaskId())
                .contextId(context.getContextId())
                .status(new TaskStatus(working ? TaskState.WORKING : TaskState.SUBMITTED))
                .history(message == null ? List.of() : List.of(message))
                .build();
    }

    private static Message agentText(TaskUpdater updater, String text) {
        return updater.newAgentMessage(List.of(new TextPart(text)), null);
    }

    /** The text of the message's first text part, or "" (only that part scripts). */
    private static String firstText(Message message) {
        if (message == null || message.getParts() == null) return "";
        for (Part<?> part : message.getParts()) {
            if (part instanceof TextPart t) return t.getText();
        }
        return "";
    }
}
