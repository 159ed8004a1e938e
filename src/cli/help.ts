/** `--help` texts of `a2a` and each of its commands. */
import { EXIT_CODE_TABLE } from "./exit-codes.js";

const GLOBAL_FLAGS = `Flags on every command:
  --binding JSONRPC|HTTP+JSON|GRPC   prefer this protocol binding of the card
                                     (any case)
  --a2a-version x                    A2A versions to speak, most preferred first
                                     (repeatable or comma-separated; default 1.0,0.3)
  --header "Name: value"             add a request header (repeatable)
  --token t                          send Authorization: Bearer t
                                     (default: $A2A_TOKEN)
  --auth-over-http                   send --token and --header values over
                                     plain http to any interface the card
                                     names (default: https, or http only to
                                     this machine or the host you typed)
  --allow-local-urls                 follow a card from another host to
                                     this machine or its link (loopback,
                                     link-local, cloud metadata): refused
                                     by default
  --timeout ms                       limit card resolution and each call
                                     (not a stream; all of a2a send) to ms
                                     milliseconds, and how long a dropped
                                     stream tries to resume
  --json                             machine output: ProtoJSON (the spec's
                                     JSON), one document, or one line per
                                     stream event (NDJSON); errors as one
                                     {"error": ...} line on stderr
  -v, --verbose                      log every request and response on stderr
                                     (method, URL, status, headers, timing;
                                     no bodies; credentials shown as ***)
  -h, --help                         show help
  -V, --version                      print the version of a2a-connect

Results go to stdout; diagnostics (the interface used, the task waited for,
resumptions, how to continue a task that waits for input, -v) to stderr. Secrets (the token,
header values, a URL's credentials) are never printed. A card that carries
signatures must verify (a jku on a loopback agent may use http).`;

/** Words of `text` in lines of at most `width` characters. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let current = "";
  for (const word of text.split(" ")) {
    if (current && current.length + 1 + word.length > width) {
      lines.push(current);
      current = word;
    } else {
      current = current ? `${current} ${word}` : word;
    }
  }
  if (current) lines.push(current);
  return lines;
}

function exitCodes(): string {
  const rows = EXIT_CODE_TABLE.map(([code, what]) =>
    wrap(what, 70)
      .map((line, i) => `${i === 0 ? String(code).padStart(5) : "     "}  ${line}`)
      .join("\n"),
  );
  return `Exit codes:\n${rows.join("\n")}`;
}

const MAIN = () => `a2a: talk to A2A agents from the command line

Usage: a2a <command> [arguments] [flags]

Commands:
  card <url>                          show an agent's card (--verify checks its signature)
  send <url> <text>                   send a message and print the reply
  stream <url> <text>                 send a message and print events as they arrive
  task get|list|cancel|subscribe      read, list, cancel or follow tasks
  push create|get|list|delete         manage a task's push notification configs

<url> is the agent's base URL or its card's URL, or host:port (http on a
loopback host, https otherwise), or a card file (./card.json, file:///...),
which is checked and verified as a fetched card is.
Run "a2a <command> --help" for a command's arguments and flags.

${GLOBAL_FLAGS}

${exitCodes()}
`;

const COMMANDS: Record<string, string> = {
  card: `Usage: a2a card <url> [--verify] [--jwks file] [flags]

Fetches the agent's card and prints its name, interfaces, capabilities and
skills. --json prints the card as ProtoJSON.

  --verify       require a valid signature; prints the kid that verified
  --jwks file    trusted keys (a JWK Set file); default: the signature's jku
                 (https, or http on a loopback agent, on the card's origin)`,
  send: `Usage: a2a send <url> <text> [--file path] [--data json] [flags]

Sends one message and prints the reply once the task has ended or waits
for input: the task's state and artifacts, or the agent's direct message.
--json prints the SendMessageResponse as ProtoJSON. A <text> of - reads the
text from stdin. A task that waits for input (or authorization) prints, on
stderr, the command that continues it (--task, --context; a token goes in
$A2A_TOKEN).

So that the task is known before the reply, the message goes as
SendStreamingMessage where the card declares streaming (the reply is the
task its events leave), else as SendMessage returning at once, the task
then polled with GetTask every 1 to 2 s. Its id goes to stderr as soon as
it is known: "task: <id>", or with --json {"task":{"id":...}}; on a
terminal, each state it passes through follows. --timeout (default 60000)
bounds the whole send; past it, the task may still run: the error names
it, and "a2a task get <url> <id> --wait" waits for it.

  --file path    attach a file's bytes (repeatable)
  --data json    attach a data part holding this JSON value (repeatable)
  --context id   send in this context
  --task id      continue this task (e.g. answer INPUT_REQUIRED)
  --no-wait      print the task as soon as the agent has one (SendMessage
                 with returnImmediately), without waiting for its end`,
  stream: `Usage: a2a stream <url> <text> [--file path] [--data json] [flags]

Sends one message with SendStreamingMessage and prints each event as it
arrives. A dropped stream is resumed (GetTask, then SubscribeToTask) and a
line on stderr says so; the final line is the task's state. A stream that
cannot be resumed exits with code 8, naming the task. --json prints one
StreamResponse per line (a resumed stream goes on with a task snapshot).
A <text> of - reads the text from stdin.

  --file path    attach a file's bytes (repeatable)
  --data json    attach a data part holding this JSON value (repeatable)
  --context id   send in this context
  --task id      continue this task`,
  task: `Usage: a2a task get|list|cancel|subscribe <url> [id] [flags]

  get <url> <id> [--history n] [--wait]
                                      print a task (with its last n messages), or
                                      wait until it ends or needs input
  list <url> [--context id] [--page-size n] [--page-token t] [--history n]
                                      list tasks
  cancel <url> <id>                   cancel a task
  subscribe <url> <id>                follow a running task's events`,
  "task get": `Usage: a2a task get <url> <id> [--history n] [--wait] [flags]

Prints the task: state, status message, artifacts. --json prints the Task.

  --history n    include at most n messages of the task's history
  --wait         first wait until the task is final (completed, failed,
                 canceled, rejected) or needs input or auth: subscribes where
                 the agent streams, polls otherwise; each new state goes to
                 stderr; --timeout is the deadline of the whole wait`,
  "task list": `Usage: a2a task list <url> [--context id] [--page-size n] [--page-token t] [--history n] [flags]

Lists tasks, newest first as the agent orders them, one per line; prints
the next page's token when there is one. --json prints the ListTasksResponse.

  --context id     only tasks of this context
  --page-size n    at most n tasks (1..100)
  --page-token t   the page to read (from a previous list)
  --history n      include at most n messages of each task's history`,
  "task cancel": `Usage: a2a task cancel <url> <id> [flags]

Cancels the task and prints it. A task that can no longer be canceled
exits with code 7 (TaskNotCancelableError).`,
  "task subscribe": `Usage: a2a task subscribe <url> <id> [flags]

Follows a running task (SubscribeToTask) and prints each event as it
arrives, resuming after drops. --json prints one StreamResponse per line.`,
  push: `Usage: a2a push create|get|list|delete <url> <taskId> [configId] [flags]

  create <url> <taskId> [configId] --push-url u [--push-token t]
                                      have the agent POST the task's updates to u
  get <url> <taskId> <configId>       print one config
  list <url> <taskId>                 list the task's configs
  delete <url> <taskId> <configId>    delete one config

Push tokens are shown as "(set)", never printed; a webhook URL's user info
and query values are shown as ***.`,
  "push create": `Usage: a2a push create <url> <taskId> [configId] --push-url u [--push-token t] [flags]

Creates a push notification config for the task. --json prints the
TaskPushNotificationConfig (token masked).

  --push-url u     where the agent sends notifications (required)
  --push-token t   a token the agent sends with every notification`,
  "push get": `Usage: a2a push get <url> <taskId> <configId> [flags]

Prints one push notification config (token masked).`,
  "push list": `Usage: a2a push list <url> <taskId> [flags]

Lists the task's push notification configs (tokens masked).`,
  "push delete": `Usage: a2a push delete <url> <taskId> <configId> [flags]

Deletes one push notification config.`,
};

/** Help for a command ("task get"), a group ("task") or, by default, the program. */
export function helpText(command: string | undefined): string {
  if (command === undefined) return MAIN();
  const text = COMMANDS[command] ?? COMMANDS[command.split(" ")[0]!];
  if (text === undefined) return MAIN();
  return `${text}\n\n${GLOBAL_FLAGS}\n\nRun "a2a --help" for the exit codes.\n`;
}

/** The one-line hint after a usage error. */
export function usageHint(command: string | undefined): string {
  return command === undefined ? `Run "a2a --help" for usage.` : `Run "a2a ${command} --help" for usage.`;
}
