//! The scripted agent executor: the first text part of each user message
//! (trimmed) picks what the agent does. See README.md for the script.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a::{
    A2AError, Artifact, Message, Part, Role, StreamResponse, Task, TaskArtifactUpdateEvent,
    TaskState, TaskStatus, TaskStatusUpdateEvent,
};
use a2a_server::{AgentExecutor, ExecutorContext};
use futures::stream::BoxStream;
use tokio::sync::{mpsc, oneshot};
use tokio_stream::wrappers::ReceiverStream;

#[derive(Debug, PartialEq)]
enum Command {
    Echo(String),
    Count { n: u32, every_ms: u64 },
    Hold,
    Input,
    Fail,
    Reject,
}

fn parse_command(text: &str) -> Command {
    let trimmed = text.trim();
    let mut words = trimmed.split_whitespace();
    match words.next() {
        Some("echo") => {
            // Keep the caller's inner spacing: only the command word and the
            // whitespace right after it are dropped.
            let rest = trimmed["echo".len()..].trim_start();
            return Command::Echo(rest.to_string());
        }
        Some("count") => {
            if let Some(cmd) = parse_count(words.collect()) {
                return cmd;
            }
        }
        _ => {}
    }
    match trimmed {
        "hold" => Command::Hold,
        "input" => Command::Input,
        "fail" => Command::Fail,
        "reject" => Command::Reject,
        // Anything unrecognised behaves like the smallest counting task.
        _ => Command::Count { n: 1, every_ms: 0 },
    }
}

/// `count [n] [every ms]`; `None` when the words after `count` do not fit,
/// so the message falls through to the default script.
fn parse_count(args: Vec<&str>) -> Option<Command> {
    let mut n = 3;
    let mut every_ms = 0;
    let mut rest = args.as_slice();
    if let Some(first) = rest.first() {
        if let Ok(value) = first.parse::<u32>() {
            n = value;
            rest = &rest[1..];
        }
    }
    match rest {
        [] => {}
        ["every", ms] => every_ms = ms.parse().ok()?,
        _ => return None,
    }
    Some(Command::Count { n, every_ms })
}

fn first_text(message: Option<&Message>) -> String {
    message
        .and_then(Message::text)
        .unwrap_or_default()
        .to_string()
}

/// Executor that keeps no task state of its own (the SDK's store does), only
/// a wake-up handle per held execution so a cancel can let it finish.
#[derive(Clone, Default)]
pub struct ScriptedAgent {
    held: Arc<Mutex<HashMap<String, oneshot::Sender<()>>>>,
}

type EventSender = mpsc::Sender<Result<StreamResponse, A2AError>>;

/// Task and context ids of the execution, for building events.
#[derive(Clone)]
struct Ids {
    task_id: String,
    context_id: String,
}

impl Ids {
    fn status(&self, state: TaskState, text: Option<&str>) -> StreamResponse {
        let message = text.map(|text| {
            let mut message = Message::new(Role::Agent, vec![Part::text(text)]);
            message.task_id = Some(self.task_id.clone());
            message.context_id = Some(self.context_id.clone());
            message
        });
        StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: self.task_id.clone(),
            context_id: self.context_id.clone(),
            status: TaskStatus {
                state,
                message,
                // The SDK stamps every status it stores or streams.
                timestamp: None,
            },
            metadata: None,
        })
    }

    fn chunk(&self, index: u32, total: u32) -> StreamResponse {
        StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: self.task_id.clone(),
            context_id: self.context_id.clone(),
            artifact: Artifact {
                artifact_id: "result".to_string(),
                name: Some("result".to_string()),
                description: None,
                parts: vec![Part::text(format!("chunk-{index}"))],
                metadata: None,
                extensions: None,
            },
            append: Some(index > 1),
            last_chunk: Some(index == total),
            metadata: None,
        })
    }
}

/// The Task event that opens an execution. A Task event replaces the stored
/// task wholesale, so it starts from the snapshot the SDK hands over and keeps
/// its history. That snapshot holds the incoming message on unary calls but
/// not on streaming ones, so it is added when missing; the status message
/// being replaced (e.g. "need more") goes into history just before it, so no
/// turn of the conversation is lost.
fn task_snapshot(ctx: &ExecutorContext, state: TaskState) -> StreamResponse {
    let mut task = ctx.stored_task.clone().unwrap_or_else(|| Task {
        id: ctx.task_id.clone(),
        context_id: ctx.context_id.clone(),
        status: TaskStatus {
            state: TaskState::Submitted,
            message: None,
            timestamp: None,
        },
        artifacts: None,
        history: ctx.message.clone().map(|message| vec![message]),
        metadata: None,
    });
    if let Some(incoming) = &ctx.message {
        let history = task.history.get_or_insert_with(Vec::new);
        let mut at = history.len();
        if history
            .last()
            .is_some_and(|last| last.message_id == incoming.message_id)
        {
            at -= 1;
        } else {
            history.push(incoming.clone());
        }
        if let Some(previous) = task.status.message.take() {
            history.insert(at, previous);
        }
    }
    task.status = TaskStatus {
        state,
        message: None,
        timestamp: None,
    };
    StreamResponse::Task(task)
}

impl ScriptedAgent {
    async fn run(self, ctx: ExecutorContext, tx: EventSender) {
        let command = parse_command(&first_text(ctx.message.as_ref()));
        let ids = Ids {
            task_id: ctx.task_id.clone(),
            context_id: ctx.context_id.clone(),
        };
        // A send only fails once the SDK stopped listening (the task reached a
        // final state some other way, e.g. a cancel): nothing left to do then.
        macro_rules! emit {
            ($event:expr) => {
                if tx.send(Ok($event)).await.is_err() {
                    return;
                }
            };
        }

        if let Command::Echo(text) = command {
            // A direct reply: no task, only the conversation's context.
            let mut reply = Message::new(Role::Agent, vec![Part::text(text)]);
            reply.context_id = Some(ids.context_id.clone());
            emit!(StreamResponse::Message(reply));
            return;
        }

        if command == Command::Hold {
            let (wake, woken) = oneshot::channel();
            self.held
                .lock()
                .expect("held map poisoned")
                .insert(ids.task_id.clone(), wake);
            emit!(task_snapshot(&ctx, TaskState::Working));
            // Stay live until cancel() wakes us (it also publishes CANCELED)
            // or the SDK drops the stream.
            tokio::select! {
                _ = woken => {}
                _ = tx.closed() => {}
            }
            self.held
                .lock()
                .expect("held map poisoned")
                .remove(&ids.task_id);
            return;
        }

        // The message names a task only when it continues one (the SDK refuses
        // unknown task ids), and a continued task is already past SUBMITTED.
        let continues = ctx
            .message
            .as_ref()
            .is_some_and(|message| message.task_id.is_some());
        let first = if continues {
            TaskState::Working
        } else {
            TaskState::Submitted
        };
        emit!(task_snapshot(&ctx, first));

        match command {
            Command::Reject => emit!(ids.status(TaskState::Rejected, None)),
            Command::Input => {
                emit!(ids.status(TaskState::Working, None));
                // Ending the stream here lets the SDK close this execution, so
                // the next message on the task can start a new one.
                emit!(ids.status(TaskState::InputRequired, Some("need more")));
            }
            Command::Fail => {
                emit!(ids.status(TaskState::Working, None));
                emit!(ids.status(TaskState::Failed, Some("failed on purpose")));
            }
            Command::Count { n, every_ms } => {
                emit!(ids.status(TaskState::Working, None));
                for index in 1..=n {
                    if every_ms > 0 {
                        tokio::select! {
                            _ = tokio::time::sleep(Duration::from_millis(every_ms)) => {}
                            _ = tx.closed() => return,
                        }
                    }
                    emit!(ids.chunk(index, n));
                }
                emit!(ids.status(TaskState::Completed, None));
            }
            Command::Echo(_) | Command::Hold => unreachable!("handled above"),
        }
    }
}

impl AgentExecutor for ScriptedAgent {
    fn execute(
        &self,
        ctx: ExecutorContext,
    ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        // The script runs as its own task feeding a channel, so pauses
        // (`every`, `hold`) are plain awaits rather than a hand-built stream.
        let (tx, rx) = mpsc::channel(16);
        tokio::spawn(self.clone().run(ctx, tx));
        Box::pin(ReceiverStream::new(rx))
    }

    fn cancel(&self, ctx: ExecutorContext) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        // Any non-final task may be canceled: a held execution is woken so it
        // ends; a task parked in INPUT_REQUIRED has no execution to stop.
        if let Some(wake) = self
            .held
            .lock()
            .expect("held map poisoned")
            .remove(&ctx.task_id)
        {
            let _ = wake.send(());
        }
        let ids = Ids {
            task_id: ctx.task_id,
            context_id: ctx.context_id,
        };
        Box::pin(futures::stream::iter([Ok(
            ids.status(TaskState::Canceled, None)
        )]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_script() {
        assert_eq!(
            parse_command("  echo  hi there "),
            Command::Echo("hi there".into())
        );
        assert_eq!(parse_command("echo"), Command::Echo(String::new()));
        assert_eq!(parse_command("count"), Command::Count { n: 3, every_ms: 0 });
        assert_eq!(
            parse_command("count 5"),
            Command::Count { n: 5, every_ms: 0 }
        );
        assert_eq!(
            parse_command("count 2 every 50"),
            Command::Count { n: 2, every_ms: 50 }
        );
        assert_eq!(
            parse_command("count every 10"),
            Command::Count { n: 3, every_ms: 10 }
        );
        assert_eq!(parse_command("hold"), Command::Hold);
        assert_eq!(
            parse_command("whatever"),
            Command::Count { n: 1, every_ms: 0 }
        );
        assert_eq!(
            parse_command("counting"),
            Command::Count { n: 1, every_ms: 0 }
        );
    }
}
