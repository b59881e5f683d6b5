"""Registers a bot and a person on a fresh Synapse through its shared-secret
registration API (what `register_new_matrix_user` uses, in one process), has
the bot create a private room, invite the person, and the person join.
Prints one JSON line: the homeserver, both users' ids and access tokens, the
room id. Used by tests/common/matrix.rs.

usage: room.py BASE_URL SHARED_SECRET
"""

import hashlib
import hmac
import json
import sys
import urllib.request


def call(base, method, path, body=None, token=None):
    request = urllib.request.Request(
        base + path,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    if token:
        request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def register(base, secret, user):
    nonce = call(base, "GET", "/_synapse/admin/v1/register")["nonce"]
    password = user + "-password"
    mac = hmac.new(secret.encode(), digestmod=hashlib.sha1)
    mac.update(b"\x00".join(p.encode() for p in (nonce, user, password, "notadmin")))
    reply = call(
        base,
        "POST",
        "/_synapse/admin/v1/register",
        {"nonce": nonce, "username": user, "password": password, "admin": False, "mac": mac.hexdigest()},
    )
    return reply["user_id"], reply["access_token"]


def main():
    base, secret = sys.argv[1], sys.argv[2]
    bot_id, bot_token = register(base, secret, "bot")
    person_id, person_token = register(base, secret, "person")
    other_id, other_token = register(base, secret, "outsider")
    room = call(
        base,
        "POST",
        "/_matrix/client/v3/createRoom",
        {"preset": "private_chat", "name": "ask_user", "invite": [person_id]},
        bot_token,
    )["room_id"]
    call(base, "POST", "/_matrix/client/v3/join/" + urllib.request.quote(room), {}, person_token)
    print(
        json.dumps(
            {
                "homeserver": base,
                "room": room,
                "bot": {"id": bot_id, "token": bot_token},
                "person": {"id": person_id, "token": person_token},
                "outsider": {"id": other_id, "token": other_token},
            }
        )
    )


main()
