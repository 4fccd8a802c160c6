"""HomeHub: put a smart home into night mode with device tools (a shipped tool-use env)."""

import json
import random

from spadegym.program import ToolEnv, read_difficulty

ROOMS = ["kitchen", "living room", "hallway", "bedroom", "office", "bathroom", "garage",
         "nursery", "den"]


def call(tool, **arguments):
    """Format one tool call the way the player writes it."""
    return "<tool_call>" + json.dumps({"name": tool, "arguments": arguments}) + "</tool_call>"


class HomeHubEnv(ToolEnv):
    """HomeHub: apply a night-mode routine to a smart home.

    You control a smart home hub. The first message gives the night-mode rules: what to do with
    lights in empty and occupied rooms, thermostats in cold rooms, and door locks. Room sensors
    (occupancy, temperature) are read with get_room; devices are changed with set_power,
    set_level and set_lock. Call tools with
    <tool_call>{"name": "list_rooms", "arguments": {}}</tool_call>. When done, reply
    <answer>N</answer> with the number of devices whose state you changed. You win when every
    device ends as the rules say and N is right."""

    max_turns = 30
    skill = "Tool_Use"
    tools = [
        {"name": "list_rooms", "description": "The rooms of the home.",
         "parameters": {"type": "object", "properties": {}, "required": []}},
        {"name": "get_room",
         "description": "A room's sensors (occupied, temperature_c) and its devices with state.",
         "parameters": {"type": "object", "properties": {
             "room": {"type": "string", "description": "room name"}},
             "required": ["room"]}},
        {"name": "set_power", "description": "Switch a light or thermostat on or off.",
         "parameters": {"type": "object", "properties": {
             "device_id": {"type": "string", "description": "e.g. light-3"},
             "on": {"type": "boolean", "description": "true for on"}},
             "required": ["device_id", "on"]}},
        {"name": "set_level",
         "description": "Set a light's brightness (1-100) or a thermostat's target (15-28 C); "
                        "the device must be on.",
         "parameters": {"type": "object", "properties": {
             "device_id": {"type": "string", "description": "e.g. thermo-2"},
             "level": {"type": "integer", "description": "brightness or target degrees"}},
             "required": ["device_id", "level"]}},
        {"name": "set_lock", "description": "Lock or unlock a door lock.",
         "parameters": {"type": "object", "properties": {
             "device_id": {"type": "string", "description": "e.g. lock-1"},
             "locked": {"type": "boolean", "description": "true to lock"}},
             "required": ["device_id", "locked"]}},
    ]

    def reset(self, seed=None, options=None):
        """Build rooms, sensors, devices and the rules."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.turn = 0
        self.done = False
        rng = self.rng
        d = self.difficulty
        self.rooms = {}
        self.devices = {}
        counters = {"light": rng.randint(1, 5), "thermo": rng.randint(1, 5),
                    "lock": rng.randint(1, 5)}
        for name in rng.sample(ROOMS, 3 + d):
            self.rooms[name] = {"occupied": rng.random() < 0.45,
                                "temperature_c": rng.randint(14, 24), "devices": []}
            kinds = ["light"] * rng.randint(1, 2)
            if rng.random() < 0.6:
                kinds.append("thermo")
            if name in ("hallway", "garage", "kitchen") or rng.random() < 0.2:
                kinds.append("lock")
            for kind in kinds:
                counters[kind] += rng.randint(1, 3)
                did = f"{kind}-{counters[kind]}"
                if kind == "light":
                    state = {"on": rng.random() < 0.7, "level": rng.choice([30, 60, 80, 100])}
                elif kind == "thermo":
                    state = {"on": rng.random() < 0.6, "level": rng.randint(17, 23)}
                else:
                    state = {"locked": rng.random() < 0.4}
                state["device_id"] = did
                state["kind"] = kind
                state["room"] = name
                self.devices[did] = state
                self.rooms[name]["devices"].append(did)
        self.dim = rng.choice([20, 25, 30, 40]) if d >= 2 else None
        self.heat = rng.randint(19, 21) if d >= 3 else None
        self.locks = d >= 2 or rng.random() < 0.5
        self.start = json.loads(json.dumps(self.devices))
        self.target = self.expected()
        return self.render_intro(), {"turn": 0}

    def expected(self):
        """Every device's state after the routine."""
        out = json.loads(json.dumps(self.start))
        for dev in out.values():
            room = self.rooms[dev["room"]]
            if dev["kind"] == "light":
                if not room["occupied"]:
                    dev["on"] = False
                elif self.dim is not None and dev["on"]:
                    dev["level"] = self.dim
            elif dev["kind"] == "thermo" and self.heat is not None:
                if room["occupied"] and room["temperature_c"] < self.heat:
                    dev["on"] = True
                    dev["level"] = self.heat
            elif dev["kind"] == "lock" and self.locks:
                dev["locked"] = True
        return out

    def render_intro(self):
        """The task, the tools and the formats."""
        rules = ["Turn off every light in rooms that are not occupied."]
        if self.dim is not None:
            rules.append(f"In occupied rooms, set every light that is on to brightness "
                         f"{self.dim}; leave lights that are off alone.")
        if self.heat is not None:
            rules.append(f"In each occupied room colder than {self.heat} C, switch its thermostat "
                         f"on (if needed) and set the target to {self.heat}. Leave other "
                         "thermostats alone.")
        if self.locks:
            rules.append("Lock every door lock.")
        text = "\n".join(f"{k + 1}. {r}" for k, r in enumerate(rules))
        return (
            f"Night mode for a home with rooms: {', '.join(sorted(self.rooms))}.\nRules:\n{text}\n"
            "Change nothing else. Finish with <answer>N</answer>, N = the number of devices "
            "whose state you changed.\n\n"
            f"Tools (JSON specs):\n{self.describe_tools()}\n\n"
            'Call a tool: <tool_call>{"name": "get_room", "arguments": {"room": "kitchen"}}'
            "</tool_call>. Several calls per reply are fine; the answer ends the episode.\n"
            f"Turn 0 of {self.max_turns}."
        )

    def step(self, action):
        """Run the reply's tool calls (base class), then report progress."""
        self.turn += 1
        if self.done:
            return "The episode is over.", 0.0, True, False, {"turn": self.turn}
        obs, reward, terminated, truncated, info = ToolEnv.step(self, action)
        self.done = terminated
        if len(obs) > 7600:
            # many calls in one reply can overflow the observation limit; keep the head
            obs = obs[:7600] + "\n[output truncated: make fewer tool calls per reply]"
        obs = f"{obs}\nTurn {self.turn} of {self.max_turns}."
        if not terminated and self.turn >= self.max_turns:
            obs += " Out of turns."
        return obs, reward, terminated, False, {"turn": self.turn}

    def device(self, value, kinds):
        """Validate a device id of an allowed kind."""
        if not isinstance(value, str) or value.strip().lower() not in self.devices:
            raise ValueError(f"no device {value!r}; get_room lists each room's device ids")
        dev = self.devices[value.strip().lower()]
        if dev["kind"] not in kinds:
            raise ValueError(f"{dev['device_id']} is a {dev['kind']}; this tool works on "
                             f"{' and '.join(kinds)} devices")
        return dev

    def tool_list_rooms(self):
        """Room names."""
        return sorted(self.rooms)

    def tool_get_room(self, room=None):
        """Sensors and devices of a room."""
        if not isinstance(room, str) or room.strip().lower() not in self.rooms:
            raise ValueError(f"no room {room!r}; rooms: {', '.join(sorted(self.rooms))}")
        name = room.strip().lower()
        info = self.rooms[name]
        devs = [{k: v for k, v in self.devices[d].items() if k != "room"} for d in info["devices"]]
        return {"room": name, "occupied": info["occupied"],
                "temperature_c": info["temperature_c"], "devices": devs}

    def tool_set_power(self, device_id=None, on=None):
        """Switch on or off."""
        dev = self.device(device_id, ["light", "thermo"])
        if not isinstance(on, bool):
            raise ValueError(f"'on' must be true or false, got {on!r}")
        dev["on"] = on
        return {"device_id": dev["device_id"], "on": on}

    def tool_set_level(self, device_id=None, level=None):
        """Set brightness or target."""
        dev = self.device(device_id, ["light", "thermo"])
        low, high = (1, 100) if dev["kind"] == "light" else (15, 28)
        if isinstance(level, bool) or not isinstance(level, int) or not low <= level <= high:
            raise ValueError(f"'level' for a {dev['kind']} must be an integer from {low} to "
                             f"{high}, got {level!r}")
        if not dev["on"]:
            raise ValueError(f"{dev['device_id']} is off; switch it on first")
        dev["level"] = level
        return {"device_id": dev["device_id"], "level": level}

    def tool_set_lock(self, device_id=None, locked=None):
        """Lock or unlock."""
        dev = self.device(device_id, ["lock"])
        if not isinstance(locked, bool):
            raise ValueError(f"'locked' must be true or false, got {locked!r}")
        dev["locked"] = locked
        return {"device_id": dev["device_id"], "locked": locked}

    def changed(self):
        """How many devices the routine changes."""
        return sum(1 for d in self.target if self.target[d] != self.start[d])

    def check(self, answer):
        """1.0 when every device matches the rules and N is right."""
        if self.devices != self.target:
            return 0.0
        try:
            count = int(str(answer).strip())
        except ValueError:
            return 0.0
        return 1.0 if count == self.changed() else 0.0

    def solution(self):
        """Inspect every room, apply the differences, answer."""
        replies = [call("list_rooms")]
        for name in sorted(self.rooms):
            replies.append(call("get_room", room=name))
        for did in sorted(self.target):
            want, have = self.target[did], self.start[did]
            if want == have:
                continue
            if want["kind"] == "lock":
                replies.append(call("set_lock", device_id=did, locked=True))
                continue
            if want["on"] != have["on"]:
                replies.append(call("set_power", device_id=did, on=want["on"]))
            if want["level"] != have["level"]:
                replies.append(call("set_level", device_id=did, level=want["level"]))
        replies.append(f"<answer>{self.changed()}</answer>")
        return replies

    def hint(self):
        """Approach only."""
        return ("Read every room first and note occupancy and temperature; the rules depend on "
                "them. A device off must be switched on before its level can change, and a "
                "device counts once however many calls it took.")
