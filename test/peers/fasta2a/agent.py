"""a2a-connect fasta2a peer: a Pydantic AI agent on a scripted mock model,
served by FastA2A 2.1.1 (fasta2a[pydantic-ai], with pydantic-ai-slim 2.68.0
and uvicorn), for the a2a-connect interop tests.

FastA2A speaks A2A JSON-RPC only, on one URL (POST /), taking both the 1.0
method names (SendMessage, ...) and its older slash names (message/send, ...);
its card, at /.well-known/agent-card.json, lists that one interface as
protocolVersion "1.0". There is no HTTP+JSON, no gRPC, no push notifications,
no extended card and no card signing in FastA2A, so this peer serves none.

The agent is a pydantic_ai.Agent whose model is a FunctionModel: its stream
function reads the first text part of the latest user message (trimmed) and
answers by script. FastA2A turns every message into a task and the model's
text into the task's artifact, so the script is what a model can say:
  echo <text>           answers <text>
  count [n] [every ms]  streams "chunk-1" .. "chunk-n" (n defaults to 3),
                        waiting ms before each chunk
  hold [ms]             says nothing for ms (default 2000), then "released"
  input                 answers "need more"
  fail, reject          the model raises, so the task ends failed
  anything else         like "count 1"
See README.md for what the contract asks that FastA2A cannot do.

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

from collections.abc import AsyncIterator
from functools import partial


from fasta2a import FastA2A, Skill
from fasta2a.broker import InMemoryBroker
from fasta2a.pydantic_ai import AgentWorker, worker_lifespan
from fasta2a.schema import AgentProvider
from fasta2a.storage import InMemoryStorage
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

# The process side every Python peer shares (../pyshared).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'pyshared'))
from peer_process import http_config, peer_arguments, serve_until_stopped, start_http  # noqa: E402

log = logging.getLogger('fasta2a-peer')

# `hold` cannot wait for a cancel: FastA2A's worker runs one task at a time and
# the Pydantic AI worker's cancel does nothing, so an endless hold would stall
# every later task. It holds for a bounded time instead.
DEFAULT_HOLD_MS = 2000

COUNT = re.compile(r'^count(?:\s+(\d+))?(?:\s+every\s+(\d+))?$')
HOLD = re.compile(r'^hold(?:\s+(\d+))?$')


def script_of(messages: list[ModelMessage]) -> str:
    """The first text part of the latest user message, trimmed.

    The history holds the whole context (earlier turns too); the latest
    request is the message that made this task.
    """
    for message in reversed(messages):
        if not isinstance(message, ModelRequest):
            continue
        for part in message.parts:
            if isinstance(part, UserPromptPart):
                if isinstance(part.content, str):
                    return part.content.strip()
                for item in part.content:
                    if isinstance(item, str):
                        return item.strip()
        # A request without user text (a tool return, say) is not the user's turn.
    return ''


async def count(n: int, every_ms: int) -> AsyncIterator[str]:
    for i in range(1, n + 1):
        if every_ms:
            await asyncio.sleep(every_ms / 1000)
        yield f'chunk-{i}'


async def scripted_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    """The mock model: each string yielded is one text delta, which FastA2A
    publishes as one artifact-update event while the task runs."""
    text = script_of(messages)
    log.info('script: %r', text)
    if text == 'echo' or text.startswith(('echo ', 'echo\t')):
        # An empty echo still yields once: a stream function must yield something.
        yield text[len('echo') :].strip()
        return
    if m := COUNT.match(text):
        n = int(m.group(1)) if m.group(1) else 3
        async for chunk in count(n, int(m.group(2) or 0)):
            yield chunk
        return
    if m := HOLD.match(text):
        await asyncio.sleep(int(m.group(1) or DEFAULT_HOLD_MS) / 1000)
        yield 'released'
        return
    if text == 'input':
        # The Pydantic AI worker always completes a run: input-required is out
        # of reach, so the question is the answer.
        yield 'need more'
        return
    if text == 'fail':
        # Raised before any text, so the run fails rather than completes;
        # FastA2A marks the task failed and drops this message.
        raise RuntimeError('failed on purpose')
    if text == 'reject':
        # No rejected state either: the nearest a model gets is a failure.
        raise RuntimeError('rejected on purpose')
    async for chunk in count(1, 0):
        yield chunk


def build_app(port: int) -> FastA2A:
    """FastA2A with the Pydantic AI worker, as `agent_to_a2a` would wire it,
    built from its public parts so that the card can say text/plain."""
    origin = f'http://127.0.0.1:{port}'
    agent = Agent(FunctionModel(stream_function=scripted_stream), name='a2a-connect fasta2a peer')
    storage = InMemoryStorage()
    broker = InMemoryBroker()
    worker = AgentWorker(agent=agent, broker=broker, storage=storage)

    def skill(id: str, name: str, description: str) -> Skill:
        return Skill(
            id=id,
            name=name,
            description=description,
            tags=['a2a-connect', 'test'],
            input_modes=['text/plain'],
            output_modes=['text/plain'],
        )

    return FastA2A(
        storage=storage,
        broker=broker,
        name='a2a-connect fasta2a peer',
        # FastA2A serves JSON-RPC on its root path: this is the URL its card gives.
        url=f'{origin}/',
        version='1.0.0',
        description='Scripted Pydantic AI agent on a mock model, served by FastA2A, for the a2a-connect interop tests.',
        provider=AgentProvider(organization='a2a-connect', url=origin),
        skills=[
            skill('echo', 'Echo', 'Answers "echo <text>" with <text>.'),
            skill('count', 'Count', 'Streams "count [n] [every ms]" as chunk-1 .. chunk-n.'),
            skill('lifecycle', 'Lifecycle', 'hold, input, fail and reject, as far as FastA2A lets a model act them.'),
        ],
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain'],
        lifespan=partial(worker_lifespan, worker=worker, agent=agent),
    )


async def main(argv: list[str]) -> int:
    # --grpc-port is taken for the common command line: FastA2A has no gRPC to serve on it.
    # --versions too: FastA2A serves one version (1.0).
    args = peer_arguments(__doc__.splitlines()[0], '1.0').parse_args(argv)
    started = await start_http(http_config(build_app(args.port), args.port, 'on'))
    if started is None:
        return 1
    return await serve_until_stopped(*started)


if __name__ == '__main__':
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format='%(asctime)s %(name)s %(levelname)s %(message)s')
    rc = asyncio.run(main(sys.argv[1:]))
    # Nothing is left to save (all state is in memory), and tearing the
    # interpreter down with the framework's modules loaded takes longer than
    # the second a peer has to stop.
    sys.stdout.flush()
    logging.shutdown()
    os._exit(rc)
