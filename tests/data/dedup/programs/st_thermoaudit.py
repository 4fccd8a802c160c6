"""Find the coldest occupied room of a smart home through its tools."""

import json
import random

from spadegym.program import ToolEnv

ROOMS = ["kitchen", "living room", "hallway", "bedroom", "office", "bathroom", "garage", "nursery", "den"]


def level_of(options, default):
    """The difficulty 1..5 in ``options``, else ``default``."""
    value = options.get("difficulty", default) if isinstance(options, dict) else default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(5, max(1, value))


class ColdRoomAuditEnv(ToolEnv):
    """Cold Room Audit: report the coldest occupied room of the home.

    Use the hub's tools to read rooms: list_rooms, then get_room for sensors (occupied,
    temperature_c). Call tools with
    <tool_call>{"name": "list_rooms", "arguments": {}}</tool_call>. Answer with
    <answer>ROOM</answer>: the occupied room with the lowest temperature (ties: the first in
    alphabetical order). A wrong room loses."""

    max_turns = 20
    skill = "Tool_Use"
    tools = [
        {"name": "list_rooms", "description": "The rooms of the home.",
         "parameters": {"type": "object", "properties": {}, "required": []}},
        {"name": "get_room", "description": "A room's sensors: occupied, temperature_c.",
         "parameters": {"type": "object", "properties": {
             "room": {"type": "string", "description": "room name"}}, "required": ["room"]}},
    ]

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        level = level_of(options, 2)
        self.rooms = {}
        for name in self.rng.sample(ROOMS, 3 + level):
            self.rooms[name] = {"occupied": self.rng.random() < 0.6, "temperature_c": self.rng.randint(12, 24)}
        first = sorted(self.rooms)[0]
        self.rooms[first]["occupied"] = True
        self.turn = 0
        return ("Audit the home and name its coldest occupied room.\n"
                f"Tools:\n{self.describe_tools()}\nAnswer with <answer>ROOM</answer>."), {"turn": 0}

    def coldest(self):
        occupied = [n for n in sorted(self.rooms) if self.rooms[n]["occupied"]]
        return min(occupied, key=lambda n: (self.rooms[n]["temperature_c"], n))

    def tool_list_rooms(self):
        """Room names."""
        return sorted(self.rooms)

    def tool_get_room(self, room=None):
        """Sensors of a room."""
        if not isinstance(room, str) or room.strip().lower() not in self.rooms:
            raise ValueError(f"no room {room!r}")
        return dict(self.rooms[room.strip().lower()])

    def check(self, answer):
        return 1.0 if str(answer).strip().lower() == self.coldest() else 0.0

    def step(self, action):
        self.turn += 1
        obs, reward, terminated, truncated, info = ToolEnv.step(self, action)
        return obs, reward, terminated, False, {"turn": self.turn}

    def solution(self):
        calls = ["<tool_call>" + json.dumps({"name": "list_rooms", "arguments": {}}) + "</tool_call>"]
        for name in sorted(self.rooms):
            calls.append("<tool_call>" + json.dumps({"name": "get_room", "arguments": {"room": name}}) + "</tool_call>")
        return calls + [f"<answer>{self.coldest()}</answer>"]
