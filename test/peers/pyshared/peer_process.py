"""The process side that every Python peer of the interop tests shares, as
the peer contract has it (test/support/sdk-peers.ts): HTTP under uvicorn on
127.0.0.1 without uvicorn's own signal handling, `ready` on stdout once it
listens, and a stop within a second on SIGTERM, SIGINT or stdin EOF (so a
peer whose test process died does not linger).

Standard library and uvicorn only, which every peer's environment has; a
peer puts this folder on sys.path to import it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import threading
from collections.abc import Awaitable, Callable

import uvicorn

#: How long a stop may take before the process just ends: all state is in memory.
STOP_GRACE_S = 0.9


def peer_arguments(description: str, versions: str) -> argparse.ArgumentParser:
    """The command line every peer takes: `--port`, `--grpc-port` (required,
    whether or not the peer serves gRPC) and `--versions` (default
    `versions`); a peer adds its own options."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument('--port', type=int, required=True)
    parser.add_argument('--grpc-port', type=int, required=True)
    parser.add_argument('--versions', default=versions, help='comma-separated protocol versions to serve')
    return parser


def http_config(app: object, port: int, lifespan: str) -> uvicorn.Config:
    """uvicorn on 127.0.0.1:`port` with the logging the peer set up (stderr
    only: uvicorn's own would send access lines to stdout, where only
    `ready` goes) and open streams given 0.3 s at a stop."""
    return uvicorn.Config(
        app, host='127.0.0.1', port=port, log_config=None, lifespan=lifespan, timeout_graceful_shutdown=0.3
    )


class PeerServer(uvicorn.Server):
    """uvicorn without its own signal handling: the peer owns SIGTERM/SIGINT
    and stdin EOF, so that everything it serves stops together, and uvicorn
    does not re-raise the signal once it has shut down."""

    def capture_signals(self):  # type: ignore[override]
        return contextlib.nullcontext()


def watch_stdin(loop: asyncio.AbstractEventLoop, stop: asyncio.Event) -> None:
    """Sets `stop` at stdin EOF. A daemon thread: a blocking read works on any
    kind of stdin."""

    def run() -> None:
        # os.read, not sys.stdin: a buffered reader's lock held by this thread
        # at interpreter exit would abort the process.
        with contextlib.suppress(OSError):
            while os.read(0, 65536):
                pass
        loop.call_soon_threadsafe(stop.set)

    threading.Thread(target=run, name='stdin-eof', daemon=True).start()


async def start_http(config: uvicorn.Config) -> tuple[PeerServer, asyncio.Task[None]] | None:
    """Starts uvicorn; the server and its task once it listens, or None when
    it could not bind or start the app (uvicorn logged why)."""
    server = PeerServer(config)

    async def serve() -> None:
        # uvicorn exits the process (SystemExit) when it cannot bind: an
        # ordinary end of this task instead, which the check below sees.
        with contextlib.suppress(SystemExit):
            await server.serve()

    task = asyncio.create_task(serve())
    while not server.started and not task.done():
        await asyncio.sleep(0.01)
    return None if task.done() else (server, task)


async def serve_until_stopped(
    server: PeerServer,
    task: asyncio.Task[None],
    cleanup: Callable[[], Awaitable[object]] | None = None,
) -> int:
    """Says `ready`, serves until a stop is asked for (or the server ends),
    then stops the server and runs `cleanup`, within STOP_GRACE_S."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    watch_stdin(loop, stop)

    print('ready', flush=True)
    await asyncio.wait([asyncio.create_task(stop.wait()), task], return_when=asyncio.FIRST_COMPLETED)

    # Whatever is still draining past the grace (open event streams, a model
    # run) is abandoned rather than waited for.
    deadline = threading.Timer(STOP_GRACE_S, os._exit, args=(0,))
    deadline.daemon = True
    deadline.start()
    # A graceful stop, so the app's lifespan ends as it should; open streams get
    # the config's timeout_graceful_shutdown, the process the grace above.
    server.should_exit = True
    await asyncio.gather(task, *([cleanup()] if cleanup else []), return_exceptions=True)
    return 0
