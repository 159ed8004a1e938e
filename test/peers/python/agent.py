"""a2a-connect python peer: a scripted A2A agent served by the official
Python SDK, a2a-sdk 1.3.0 (with uvicorn), for the a2a-connect interop tests.

It serves, in one process and one asyncio loop:
  - HTTP on 127.0.0.1:--port (Starlette under uvicorn): the Agent Card at
    /.well-known/agent-card.json, its signing key at /.well-known/jwks.json,
    JSON-RPC at /a2a/jsonrpc (1.0 methods, and 0.3 methods on the same URL)
    and HTTP+JSON under /a2a/rest (1.0 at /a2a/rest/..., 0.3 at
    /a2a/rest/v1/...);
  - gRPC on 127.0.0.1:--grpc-port (grpc.aio): lf.a2a.v1.A2AService (1.0)
    and a2a.v1.A2AService (0.3) on the same server.

The executor is scripted by the first text part of each user message:
  echo <text> | count [n] [every ms] | hold | input | fail | reject
(anything else runs like "count 1").

Usage: agent.py --port HTTP_PORT --grpc-port GRPC_PORT [--versions 1.0,0.3]
Prints "ready" on stdout once both servers listen; logs go to stderr. Stops
on SIGTERM/SIGINT and when stdin reaches EOF.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import re
import sys
import uuid

from datetime import datetime, timezone

import grpc
import httpx
import jwt

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route

from a2a.compat.v0_3 import a2a_v0_3_pb2_grpc
from a2a.compat.v0_3.grpc_handler import CompatGrpcHandler
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler, GrpcHandler
from a2a.server.routes import (
    create_agent_card_routes,
    create_jsonrpc_routes,
    create_rest_routes,
)
from a2a.server.tasks import (
    BasePushNotificationSender,
    InMemoryPushNotificationConfigStore,
    InMemoryTaskStore,
    TaskUpdater,
)
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentProvider,
    AgentSkill,
    Message,
    Part,
    Role,
    Task,
    TaskState,
    TaskStatus,
    a2a_pb2_grpc,
)
from a2a.utils.signing import create_agent_card_signer

# The process side every Python peer shares (../pyshared).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'pyshared'))
from peer_process import http_config, peer_arguments, serve_until_stopped, start_http  # noqa: E402


log = logging.getLogger('a2a-connect-peer')

SUPPORTED_VERSIONS = ('1.0', '0.3')
KEY_ID = 'peer-es256'

# The command grammar of the contract; anchored so "counting" is not "count".
ECHO_RE = re.compile(r'^echo(?:\s+([\s\S]*))?$')
COUNT_RE = re.compile(r'^count(?:\s+(\d+))?(?:\s+every\s+(\d+))?$')


# ---------------------------------------------------------------------------
# Scripted executor


def first_text(message: Message | None) -> str:
    """The text of the first text part, or '' (only that part scripts)."""
    if message is None:
        return ''
    for part in message.parts:
        if part.HasField('text'):
            return part.text
    return ''


def status_now(state: TaskState) -> TaskStatus:
    """A status stamped now, like the updates TaskUpdater publishes."""
    status = TaskStatus(state=state)
    status.timestamp.FromDatetime(datetime.now(timezone.utc))
    return status


class ScriptedExecutor(AgentExecutor):
    """Runs the command in the first text part of each user message."""

    async def execute(
        self, context: RequestContext, event_queue: EventQueue
    ) -> None:
        text = first_text(context.message).strip()

        echo = ECHO_RE.match(text)
        if echo:
            # A direct reply: a Message and no Task, which ends the request.
            await event_queue.enqueue_event(
                Message(
                    message_id=str(uuid.uuid4()),
                    context_id=context.context_id,
                    role=Role.ROLE_AGENT,
                    parts=[Part(text=echo.group(1) or '')],
                )
            )
            return

        task_id = context.task_id or ''
        # A follow-up that names only its task gets a fresh context id from
        # the SDK; the task's own context id is the one its events must carry.
        existing = context.current_task
        context_id = (
            existing.context_id if existing else context.context_id or ''
        )
        updater = TaskUpdater(event_queue, task_id, context_id)

        def agent_text(value: str) -> Message:
            return updater.new_agent_message([Part(text=value)])

        # A follow-up message on an existing task (e.g. after INPUT_REQUIRED)
        # continues it, so its first event says WORKING rather than SUBMITTED.
        await event_queue.enqueue_event(
            self._snapshot(context, context_id, text == 'hold')
        )

        if text == 'hold':
            # Stays live until CancelTask: the SDK then calls cancel() below,
            # which publishes CANCELED, and cancels this coroutine.
            await asyncio.Event().wait()
            return
        if text == 'reject':
            await updater.reject()
            return
        if text == 'input':
            await updater.start_work()
            await updater.requires_input(agent_text('need more'))
            return
        if text == 'fail':
            await updater.start_work()
            await updater.failed(agent_text('failed on purpose'))
            return

        count = COUNT_RE.match(text)
        if count:
            n = int(count.group(1) or 3)
            every_ms = int(count.group(2) or 0)
        else:
            n, every_ms = 1, 0  # anything else runs like "count 1"
        await updater.start_work()
        for i in range(1, n + 1):
            if every_ms:
                await asyncio.sleep(every_ms / 1000)
            await updater.add_artifact(
                [Part(text=f'chunk-{i}')],
                artifact_id='result',
                name='result',
                append=i > 1,
                last_chunk=i == n,
            )
        await updater.complete()

    def _snapshot(
        self, context: RequestContext, context_id: str, working: bool
    ) -> Task:
        """The task as the first event of this turn.

        For a follow-up the SDK keeps its stored task and ignores this one
        (logging an error), but still streams it to the caller, so it shows
        the task as it continues: WORKING, with the new message in history.
        """
        existing = context.current_task
        if existing is not None:
            task = Task()
            task.CopyFrom(existing)
            task.status.CopyFrom(status_now(TaskState.TASK_STATE_WORKING))
            if context.message is not None and all(
                m.message_id != context.message.message_id for m in task.history
            ):
                follow_up = Message()
                follow_up.CopyFrom(context.message)
                follow_up.context_id = context_id
                task.history.append(follow_up)
            return task
        state = (
            TaskState.TASK_STATE_WORKING
            if working
            else TaskState.TASK_STATE_SUBMITTED
        )
        task = Task(
            id=context.task_id or '',
            context_id=context_id,
            status=status_now(state),
        )
        if context.message is not None:
            task.history.append(context.message)
        return task

    async def cancel(
        self, context: RequestContext, event_queue: EventQueue
    ) -> None:
        # Called for any live task (held, or parked in INPUT_REQUIRED); the
        # SDK cancels a running execute() right after this returns.
        updater = TaskUpdater(
            event_queue, context.task_id or '', context.context_id or ''
        )
        await updater.cancel()


# ---------------------------------------------------------------------------
# Cards and signing


def skill(
    skill_id: str, name: str, description: str, tags: list[str],
    examples: list[str],
) -> AgentSkill:
    return AgentSkill(
        id=skill_id, name=name, description=description, tags=tags,
        examples=examples,
    )


SKILLS = [
    skill('echo', 'Echo',
          'Replies with a direct message repeating the text after `echo`.',
          ['test', 'message'], ['echo hello']),
    skill('count', 'Count',
          'Runs a task that streams n chunks of one artifact, then completes.',
          ['test', 'task', 'streaming'], ['count 3', 'count 5 every 100']),
    skill('lifecycle', 'Task lifecycle',
          '`hold` waits for cancel; `input`, `fail` and `reject` end in '
          'those states.',
          ['test', 'task'], ['hold', 'input', 'fail', 'reject']),
]

SECRET_SKILL = skill('secret-skill', 'Secret skill',
                     'Listed only on the extended agent card.',
                     ['test', 'extended'], [])


def build_cards(
    http_port: int, grpc_port: int, versions: list[str]
) -> tuple[AgentCard, AgentCard]:
    """The public card and the extended card, both unsigned."""
    origin = f'http://127.0.0.1:{http_port}'
    interfaces = []
    for version in versions:
        # The SDK multiplexes both versions on the same HTTP URLs (JSON-RPC
        # by method name, REST 0.3 under <base>/v1/...), so each version's
        # entries carry the same URLs.
        interfaces += [
            AgentInterface(url=f'{origin}/a2a/jsonrpc',
                           protocol_binding='JSONRPC',
                           protocol_version=version),
            AgentInterface(url=f'{origin}/a2a/rest',
                           protocol_binding='HTTP+JSON',
                           protocol_version=version),
            # gRPC clients dial a target, not a URL: host:port.
            AgentInterface(url=f'127.0.0.1:{grpc_port}',
                           protocol_binding='GRPC',
                           protocol_version=version),
        ]
    card = AgentCard(
        name='a2a-connect python peer',
        description='Scripted test agent on the official Python A2A SDK '
                    '(a2a-sdk 1.3.0).',
        version='1.0.0',
        provider=AgentProvider(organization='a2a-connect', url=origin),
        capabilities=AgentCapabilities(
            streaming=True, push_notifications=True, extended_agent_card=True
        ),
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain'],
        skills=SKILLS,
        supported_interfaces=interfaces,
    )
    extended = AgentCard()
    extended.CopyFrom(card)
    extended.description = card.description + ' Extended card.'
    extended.skills.append(SECRET_SKILL)
    return card, extended


def new_signing_key(http_port: int):
    """A fresh ES256 key: the SDK's card signer and the JWK Set to serve."""
    private_key = ec.generate_private_key(ec.SECP256R1())
    pem = private_key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    jku = f'http://127.0.0.1:{http_port}/.well-known/jwks.json'
    signer = create_agent_card_signer(
        signing_key=pem,
        # typ JOSE as the SDK's ProtectedHeader recommends; without it PyJWT
        # would write typ JWT, and this is no JWT.
        protected_header={
            'kid': KEY_ID, 'alg': 'ES256', 'jku': jku, 'typ': 'JOSE'
        },
    )
    jwk = jwt.algorithms.ECAlgorithm.to_jwk(
        private_key.public_key(), as_dict=True
    )
    jwk.update({'kid': KEY_ID, 'alg': 'ES256', 'use': 'sig'})
    return signer, {'keys': [jwk]}


# ---------------------------------------------------------------------------
# Servers


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = peer_arguments(__doc__.splitlines()[0], ','.join(SUPPORTED_VERSIONS))
    parser.add_argument('--log-level', default='warning')
    args = parser.parse_args(argv)
    versions = [v.strip() for v in args.versions.split(',') if v.strip()]
    unknown = [v for v in versions if v not in SUPPORTED_VERSIONS]
    if not versions or unknown:
        parser.error(f'--versions: choose from {", ".join(SUPPORTED_VERSIONS)}')
    args.versions = list(dict.fromkeys(versions))
    return args


async def main(argv: list[str]) -> int:
    args = parse_args(argv)
    logging.basicConfig(
        stream=sys.stderr,
        level=args.log_level.upper(),
        format='%(asctime)s %(levelname)s %(name)s: %(message)s',
    )
    v03 = '0.3' in args.versions

    card, extended_card = build_cards(args.port, args.grpc_port, args.versions)
    signer, jwks = new_signing_key(args.port)
    # The cards never change, so each is signed once, at start.
    signer(card)
    signer(extended_card)

    push_store = InMemoryPushNotificationConfigStore()
    push_client = httpx.AsyncClient(timeout=10)
    handler = DefaultRequestHandler(
        agent_executor=ScriptedExecutor(),
        task_store=InMemoryTaskStore(),
        agent_card=card,
        push_config_store=push_store,
        push_sender=BasePushNotificationSender(push_client, push_store),
        extended_agent_card=extended_card,
    )

    async def serve_jwks(_: Request) -> JSONResponse:
        return JSONResponse(jwks)

    # Order matters: the REST routes include a catch-all /{tenant} mount, so
    # they are placed under their own /a2a/rest prefix, after everything else.
    # With 0.3 on, JSON-RPC answers 0.3 method names on the same URL and REST
    # 0.3 lives at /a2a/rest/v1/... The SDK offers no switch to turn 1.0 off
    # on HTTP, so --versions only changes the card and the gRPC services.
    app = Starlette(
        routes=[
            *create_agent_card_routes(card),
            Route('/.well-known/jwks.json', serve_jwks, methods=['GET']),
            *create_jsonrpc_routes(
                handler, rpc_url='/a2a/jsonrpc', enable_v0_3_compat=v03
            ),
            Mount(
                '/a2a/rest',
                routes=create_rest_routes(handler, enable_v0_3_compat=v03),
            ),
        ]
    )

    grpc_server = grpc.aio.server()
    if '1.0' in args.versions:
        a2a_pb2_grpc.add_A2AServiceServicer_to_server(
            GrpcHandler(handler), grpc_server
        )
    if v03:
        a2a_v0_3_pb2_grpc.add_A2AServiceServicer_to_server(
            CompatGrpcHandler(handler), grpc_server
        )
    grpc_server.add_insecure_port(f'127.0.0.1:{args.grpc_port}')
    await grpc_server.start()

    started = await start_http(http_config(app, args.port, 'off'))
    if started is None:
        await grpc_server.stop(None)
        await push_client.aclose()
        return 1

    async def cleanup() -> None:
        await grpc_server.stop(None)
        await handler.aclose()
        await push_client.aclose()

    return await serve_until_stopped(*started, cleanup)


if __name__ == '__main__':
    code = asyncio.run(main(sys.argv[1:]))
    # Skip interpreter teardown (daemon threads, pending grpc internals).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
