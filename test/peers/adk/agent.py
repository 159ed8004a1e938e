"""a2a-connect adk peer: a scripted Google ADK agent (no model) exposed with
ADK's own `to_a2a`, google-adk 2.13.0 on a2a-sdk 1.3.0 (with uvicorn), for
the a2a-connect interop tests.

`to_a2a` wires ADK's A2aAgentExecutor into a2a-sdk's request handler with an
in-memory task store and an in-memory push config store, and serves only
JSON-RPC, on the root path (POST /), with a2a-sdk's 0.3 compatibility on the
same URL; the card is at /.well-known/agent-card.json. It serves no HTTP+JSON,
no gRPC, no extended card, signs nothing and has no push sender, so this peer
offers none of those.

The agent is a BaseAgent subclass whose events are scripted by the first
text part of the user message (trimmed):
  echo <text>           answers <text>
  count [n] [every ms]  chunk-1 .. chunk-n as partial events (n defaults to 3),
                        waiting ms before each, then the whole answer
  hold                  waits until the task is canceled
  input                 asks "need more" through a long-running tool call,
                        which ADK turns into input-required
  fail                  an error event "failed on purpose": failed
  reject                an error event that the executor interceptor below
                        turns into rejected
  anything else         like "count 1"
See README.md for what the contract asks that ADK cannot do.

Usage: agent.py --port HTTP_PORT --grpc-port GRPC_PORT [--versions ...]
Prints "ready" on stdout once HTTP listens; logs go to stderr. Stops on
SIGTERM/SIGINT and when stdin reaches EOF.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import sys
import uuid
import warnings

from collections.abc import AsyncGenerator


from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentProvider,
    AgentSkill,
    TaskState,
    TaskStatusUpdateEvent,
)
from google.adk.a2a.executor.a2a_agent_executor import A2aAgentExecutor
from google.adk.a2a.executor.config import A2aAgentExecutorConfig, ExecuteInterceptor
from google.adk.a2a.executor.executor_context import ExecutorContext
from google.adk.a2a.utils.agent_to_a2a import to_a2a
from google.adk.agents import BaseAgent, InvocationContext
from google.adk.events import Event
from google.adk.runners import Runner
from google.genai import types

# The process side every Python peer shares (../pyshared).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'pyshared'))
from peer_process import http_config, peer_arguments, serve_until_stopped, start_http  # noqa: E402

log = logging.getLogger('adk-peer')

COUNT = re.compile(r'^count(?:\s+(\d+))?(?:\s+every\s+(\d+))?$')

# The error code the agent gives a rejection, so that the interceptor can tell
# it from a failure: ADK maps every error event to failed.
REJECT_CODE = 'REJECTED'
# Where ADK's executors copy an error event's code: the failed status message's
# metadata, under ADK's "adk_" prefix.
ERROR_CODE_KEY = 'adk_error_code'


def script_of(content: types.Content | None) -> str:
    """The first text part of the user's message, trimmed."""
    for part in (content.parts if content and content.parts else []):
        if part.text is not None:
            return part.text.strip()
    return ''


class ScriptedAgent(BaseAgent):
    """An ADK agent with no model: each user message picks a scripted run."""

    def _event(self, ctx: InvocationContext, **fields) -> Event:
        return Event(author=self.name, invocation_id=ctx.invocation_id, **fields)

    def _text(self, ctx: InvocationContext, *texts: str, partial: bool | None = None) -> Event:
        parts = [types.Part(text=t) for t in texts]
        return self._event(ctx, content=types.Content(role='model', parts=parts), partial=partial)

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        text = script_of(ctx.user_content)
        log.info('script: %r', text)
        if text == 'echo' or text.startswith(('echo ', 'echo\t')):
            yield self._text(ctx, text[len('echo') :].strip())
            return
        if m := COUNT.match(text):
            async for event in self._count(ctx, int(m.group(1)) if m.group(1) else 3, int(m.group(2) or 0)):
                yield event
            return
        if text == 'hold':
            # Ends only when a2a-sdk cancels this run on CancelTask.
            await asyncio.Event().wait()
            return
        if text == 'input':
            # ADK asks for input through a long-running tool call: the A2A
            # executor turns an event that carries one into input-required,
            # with this event's parts (the text, then the call) as the status
            # message.
            call_id = f'ask-{uuid.uuid4()}'
            yield self._event(
                ctx,
                content=types.Content(
                    role='model',
                    parts=[
                        types.Part(text='need more'),
                        types.Part(function_call=types.FunctionCall(id=call_id, name='ask_user', args={})),
                    ],
                ),
                long_running_tool_ids={call_id},
            )
            return
        if text == 'fail':
            yield self._event(ctx, error_code='FAILED', error_message='failed on purpose')
            return
        if text == 'reject':
            yield self._event(ctx, error_code=REJECT_CODE, error_message='rejected on purpose')
            return
        async for event in self._count(ctx, 1, 0):
            yield event

    async def _count(self, ctx: InvocationContext, n: int, every_ms: int) -> AsyncGenerator[Event, None]:
        """Each chunk as a partial event, then the whole answer as the final
        one, as a streaming model's run looks to ADK: the final event is what
        becomes the task's artifact."""
        chunks = [f'chunk-{i}' for i in range(1, n + 1)]
        for chunk in chunks:
            if every_ms:
                await asyncio.sleep(every_ms / 1000)
            yield self._text(ctx, chunk, partial=True)
        yield self._text(ctx, *chunks)


async def rejected_not_failed(_: ExecutorContext, final: TaskStatusUpdateEvent) -> TaskStatusUpdateEvent:
    """ADK ends a run with an error event as failed; a rejection is told
    apart by its error code, and its final status made rejected."""
    if final.status.state == TaskState.TASK_STATE_FAILED and final.status.HasField('message'):
        metadata = final.status.message.metadata
        if ERROR_CODE_KEY in metadata and metadata[ERROR_CODE_KEY] == REJECT_CODE:
            final.status.state = TaskState.TASK_STATE_REJECTED
    return final


def build_card(port: int) -> AgentCard:
    """The card `to_a2a` serves as given. Its own card builder names the agent
    and its skill after the ADK agent and lists 1.0 only; this one lists both
    versions that the route really answers, at the same URL."""
    origin = f'http://127.0.0.1:{port}'

    def skill(id: str, name: str, description: str) -> AgentSkill:
        return AgentSkill(id=id, name=name, description=description, tags=['a2a-connect', 'test'])

    return AgentCard(
        name='a2a-connect adk peer',
        description='Scripted Google ADK agent (no model) exposed with to_a2a, for the a2a-connect interop tests.',
        version='1.0.0',
        provider=AgentProvider(organization='a2a-connect', url=origin),
        # The JSON-RPC route is mounted at "/": a2a-sdk answers both versions there.
        supported_interfaces=[
            AgentInterface(url=f'{origin}/', protocol_binding='JSONRPC', protocol_version='1.0'),
            AgentInterface(url=f'{origin}/', protocol_binding='JSONRPC', protocol_version='0.3'),
        ],
        # No push sender is wired by to_a2a: configs are stored, never delivered.
        capabilities=AgentCapabilities(streaming=True, push_notifications=False, extended_agent_card=False),
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain'],
        skills=[
            skill('echo', 'Echo', 'Answers "echo <text>" with <text>.'),
            skill('count', 'Count', 'Streams "count [n] [every ms]" as chunk-1 .. chunk-n.'),
            skill('lifecycle', 'Lifecycle', 'hold, input, fail and reject: the task states a run can end in.'),
        ],
    )


def build_app(port: int):
    agent = ScriptedAgent(name='a2a_connect_adk_peer', description='Scripted agent with no model.')
    config = A2aAgentExecutorConfig(execute_interceptors=[ExecuteInterceptor(after_agent=rejected_not_failed)])

    def executor(runner: Runner) -> A2aAgentExecutor:
        return A2aAgentExecutor(runner=runner, config=config)

    return to_a2a(
        agent,
        host='127.0.0.1',
        port=port,
        agent_card=build_card(port),
        agent_executor_factory=executor,
    )


async def main(argv: list[str]) -> int:
    # --grpc-port is taken for the common command line: to_a2a serves no gRPC.
    # --versions too: the route always answers 1.0 and 0.3.
    args = peer_arguments(__doc__.splitlines()[0], '1.0,0.3').parse_args(argv)
    # to_a2a adds its routes in the app's lifespan.
    started = await start_http(http_config(build_app(args.port), args.port, 'on'))
    if started is None:
        return 1
    return await serve_until_stopped(*started)


if __name__ == '__main__':
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format='%(asctime)s %(name)s %(levelname)s %(message)s')
    # ADK marks its A2A API experimental and warns so on every use.
    warnings.filterwarnings('ignore', message=r'.*\[EXPERIMENTAL\].*')
    rc = asyncio.run(main(sys.argv[1:]))
    # Nothing is left to save (all state is in memory), and tearing the
    # interpreter down with the framework's modules loaded takes longer than
    # the second a peer has to stop.
    sys.stdout.flush()
    logging.shutdown()
    os._exit(rc)
