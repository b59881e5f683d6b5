"""The person's side of tests/inbox_matrix.rs: a real Matrix client
(matrix-nio) that waits for a message in the room and replies to it.

usage:
  person.py wait HOMESERVER USER_ID TOKEN ROOM --sender ID --contains TEXT [--thread EVENT_ID] [--timeout S]
      prints the first m.room.message from ID whose body contains TEXT (in
      EVENT_ID's thread, when given) as one JSON line: event_id, body, content;
      exit 1 when none came within S seconds (default 30).
  person.py send HOMESERVER USER_ID TOKEN ROOM TEXT [--thread EVENT_ID | --reply EVENT_ID] [--claim INBOX_ID]
      sends TEXT (in EVENT_ID's thread, or as a plain reply to it; with
      --claim, naming a question as the bot's messages do) and prints its
      event_id as one JSON line; exit 1 when the homeserver refuses it.
"""

import argparse
import asyncio
import json
import sys
import time

from nio import AsyncClient, RoomSendResponse, SyncResponse

FILTER = {"room": {"timeline": {"limit": 100}}}


def client(args):
    c = AsyncClient(args.homeserver, args.user)
    c.user_id = args.user
    c.access_token = args.token
    c.device_id = "PERSON"
    return c


def in_thread(content, root):
    relation = content.get("m.relates_to") or {}
    return relation.get("rel_type") == "m.thread" and relation.get("event_id") == root


async def wait(args):
    c = client(args)
    deadline = time.monotonic() + args.timeout
    since = None
    try:
        while time.monotonic() < deadline:
            response = await c.sync(timeout=1000, since=since, sync_filter=FILTER)
            if not isinstance(response, SyncResponse):
                await asyncio.sleep(0.2)
                continue
            since = response.next_batch
            room = response.rooms.join.get(args.room)
            for event in room.timeline.events if room else []:
                source = event.source
                content = source.get("content", {})
                if (
                    source.get("type") == "m.room.message"
                    and source.get("sender") == args.sender
                    and args.contains in content.get("body", "")
                    and (args.thread is None or in_thread(content, args.thread))
                ):
                    print(json.dumps({"event_id": source["event_id"], "body": content["body"], "content": content}))
                    return 0
        print(f"no message from {args.sender} containing {args.contains!r} within {args.timeout} s", file=sys.stderr)
        return 1
    finally:
        await c.close()


async def send(args):
    c = client(args)
    content = {"msgtype": "m.text", "body": args.text}
    if args.claim:
        # A forged question: the key the bot's own messages carry.
        content["org.ask_user.inbox_id"] = args.claim
    if args.thread:
        content["m.relates_to"] = {
            "rel_type": "m.thread",
            "event_id": args.thread,
            "is_falling_back": True,
            "m.in_reply_to": {"event_id": args.thread},
        }
    elif args.reply:
        content["m.relates_to"] = {"m.in_reply_to": {"event_id": args.reply}}
    try:
        response = await c.room_send(args.room, "m.room.message", content)
        if not isinstance(response, RoomSendResponse):
            print(f"send failed: {response}", file=sys.stderr)
            return 1
        print(json.dumps({"event_id": response.event_id}))
        return 0
    finally:
        await c.close()


def main():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("wait", "send"):
        command = commands.add_parser(name)
        for positional in ("homeserver", "user", "token", "room"):
            command.add_argument(positional)
        command.add_argument("--thread")
        if name == "wait":
            command.add_argument("--sender", required=True)
            command.add_argument("--contains", default="")
            command.add_argument("--timeout", type=float, default=30)
        else:
            command.add_argument("text")
            command.add_argument("--reply")
            command.add_argument("--claim", help="put this inbox id in the message, as the bot does")
    args = parser.parse_args()
    return asyncio.run(wait(args) if args.command == "wait" else send(args))


sys.exit(main())
