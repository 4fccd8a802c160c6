"""Evening shutdown of a connected house, done through device tools."""

import json
import random

from spadegym.program import ToolEnv

SPACES = ["kitchen", "living room", "hallway", "bedroom", "office", "bathroom", "garage",
          "nursery", "den"]


def tool_text(name, **arguments):
    """One tool call as the player would write it."""
    body = json.dumps({"name": name, "arguments": arguments})
    return f"<tool_call>{body}</tool_call>"


class EveningRoutineEnv(ToolEnv):
    """Evening Routine: run the bedtime rules across a connected house.

    You operate the house controller. The opening message lists the bedtime rules for lights
    in empty and occupied rooms, thermostats in chilly rooms, and door locks. Room sensors
    (occupancy, temperature) come from get_room; devices change through set_power, set_level
    and set_lock. Call a tool like
    <tool_call>{"name": "list_rooms", "arguments": {}}</tool_call>. To finish, reply
    <answer>N</answer> where N counts the devices whose state you changed. You win when every
    device ends up as the rules require and N is correct."""

    skill = "Tool_Use"
    max_turns = 30
    tools = [
        {"name": "list_rooms", "description": "Names of all rooms in the house.",
         "parameters": {"type": "object", "properties": {}, "required": []}},
        {"name": "get_room",
         "description": "Sensor readings (occupied, temperature_c) and device states for one room.",
         "parameters": {"type": "object", "properties": {
             "room": {"type": "string", "description": "the room's name"}},
             "required": ["room"]}},
        {"name": "set_power", "description": "Turn a light or a thermostat on or off.",
         "parameters": {"type": "object", "properties": {
             "device_id": {"type": "string", "description": "such as light-3"},
             "on": {"type": "boolean", "description": "true means on"}},
             "required": ["device_id", "on"]}},
        {"name": "set_level",
         "description": "Brightness of a light (1-100) or target of a thermostat (15-28 C); "
                        "only while the device is on.",
         "parameters": {"type": "object", "properties": {
             "device_id": {"type": "string", "description": "such as thermo-2"},
             "level": {"type": "integer", "description": "brightness or target temperature"}},
             "required": ["device_id", "level"]}},
        {"name": "set_lock", "description": "Lock or unlock a door.",
         "parameters": {"type": "object", "properties": {
             "device_id": {"type": "string", "description": "such as lock-1"},
             "locked": {"type": "boolean", "description": "true locks it"}},
             "required": ["device_id", "locked"]}},
    ]

    def hint(self):
        """Approach only."""
        return ("Inspect every room before changing anything and note who is home and how warm it "
                "is. A device that is off must be turned on before its level changes, and each "
                "device counts once however many calls you spend on it.")

    def reset(self, seed=None, options=None):
        """Create the house, its sensors, devices and bedtime rules."""
        self.rng = random.Random(seed)
        level = options.get("difficulty", 2) if isinstance(options, dict) else 2
        if isinstance(level, bool) or not isinstance(level, int):
            level = 2
        self.level = max(1, min(5, level))
        self.clock = 0
        self.closed = False
        self.spaces = {}
        self.things = {}
        serial = {"light": self.rng.randint(1, 5), "thermo": self.rng.randint(1, 5),
                  "lock": self.rng.randint(1, 5)}
        for space in self.rng.sample(SPACES, self.level + 3):
            self.spaces[space] = {"occupied": self.rng.random() < 0.45,
                                  "temperature_c": self.rng.randint(14, 24), "devices": []}
            kinds = ["light"] * self.rng.randint(1, 2)
            if self.rng.random() < 0.6:
                kinds = kinds + ["thermo"]
            if space in ("hallway", "garage", "kitchen") or self.rng.random() < 0.2:
                kinds = kinds + ["lock"]
            for kind in kinds:
                serial[kind] = serial[kind] + self.rng.randint(1, 3)
                ident = kind + "-" + str(serial[kind])
                if kind == "light":
                    state = {"on": self.rng.random() < 0.7, "level": self.rng.choice([30, 60, 80, 100])}
                elif kind == "thermo":
                    state = {"on": self.rng.random() < 0.6, "level": self.rng.randint(17, 23)}
                else:
                    state = {"locked": self.rng.random() < 0.4}
                state.update({"device_id": ident, "kind": kind, "room": space})
                self.things[ident] = state
                self.spaces[space]["devices"].append(ident)
        self.dim_to = self.rng.choice([20, 25, 30, 40]) if self.level >= 2 else None
        self.warm_to = self.rng.randint(19, 21) if self.level >= 3 else None
        self.lock_all = self.level >= 2 or self.rng.random() < 0.5
        self.before = json.loads(json.dumps(self.things))
        self.goal = self.after_rules()
        return self.briefing(), {"turn": 0}

    def after_rules(self):
        """Device states once the bedtime rules are applied."""
        result = json.loads(json.dumps(self.before))
        for thing in result.values():
            space = self.spaces[thing["room"]]
            kind = thing["kind"]
            if kind == "lock":
                if self.lock_all:
                    thing["locked"] = True
            elif kind == "light":
                if not space["occupied"]:
                    thing["on"] = False
                elif thing["on"] and self.dim_to is not None:
                    thing["level"] = self.dim_to
            elif self.warm_to is not None and space["occupied"] and space["temperature_c"] < self.warm_to:
                thing["on"] = True
                thing["level"] = self.warm_to
        return result

    def briefing(self):
        rules = ["Switch off all lights in rooms nobody occupies."]
        if self.dim_to is not None:
            rules.append(f"In occupied rooms, dim each light that is on to brightness {self.dim_to}; "
                         "lights that are off stay off.")
        if self.warm_to is not None:
            rules.append(f"For each occupied room below {self.warm_to} C, turn its thermostat on if "
                         f"it is off and set the target to {self.warm_to}. Other thermostats stay as they are.")
        if self.lock_all:
            rules.append("Lock all door locks.")
        numbered = "\n".join([f"{k}. {rule}" for k, rule in enumerate(rules, start=1)])
        return (f"Bedtime for a house with rooms: {', '.join(sorted(self.spaces))}.\nRules:\n{numbered}\n"
                "Leave everything else untouched. End with <answer>N</answer>, N being how many "
                "devices changed state.\n\n"
                f"Tools (JSON specs):\n{self.describe_tools()}\n\n"
                'Call a tool: <tool_call>{"name": "get_room", "arguments": {"room": "kitchen"}}'
                "</tool_call>. A reply may hold several calls; the answer ends the game.\n"
                f"Turn 0 of {self.max_turns}.")

    def step(self, action):
        """Let the base class run the tool calls, then add the turn count."""
        self.clock += 1
        if self.closed:
            return "Game over.", 0.0, True, False, {"turn": self.clock}
        text, reward, terminated, truncated, info = ToolEnv.step(self, action)
        self.closed = terminated
        if len(text) > 7600:
            text = text[:7600] + "\n[output cut: use fewer tool calls per reply]"
        text = text + f"\nTurn {self.clock} of {self.max_turns}."
        if self.clock >= self.max_turns and not terminated:
            text += " No turns remain."
        return text, reward, terminated, False, {"turn": self.clock}

    def check(self, answer):
        """Full marks when every device matches and the count is right."""
        if self.things != self.goal:
            return 0.0
        try:
            claimed = int(str(answer).strip())
        except ValueError:
            return 0.0
        return 1.0 if claimed == self.changes() else 0.0

    def changes(self):
        return len([k for k in self.goal if self.goal[k] != self.before[k]])

    def solution(self):
        """Look at every room, change what differs, then answer."""
        plan = [tool_text("list_rooms")]
        plan += [tool_text("get_room", room=space) for space in sorted(self.spaces)]
        for ident in sorted(self.goal):
            want = self.goal[ident]
            have = self.before[ident]
            if want == have:
                continue
            if want["kind"] == "lock":
                plan.append(tool_text("set_lock", device_id=ident, locked=True))
            else:
                if want["on"] != have["on"]:
                    plan.append(tool_text("set_power", device_id=ident, on=want["on"]))
                if want["level"] != have["level"]:
                    plan.append(tool_text("set_level", device_id=ident, level=want["level"]))
        plan.append("<answer>" + str(self.changes()) + "</answer>")
        return plan

    def pick(self, value, kinds):
        if not isinstance(value, str) or value.strip().lower() not in self.things:
            raise ValueError(f"unknown device {value!r}; get_room shows the device ids of each room")
        thing = self.things[value.strip().lower()]
        if thing["kind"] not in kinds:
            raise ValueError(f"{thing['device_id']} is a {thing['kind']}; this tool only handles "
                             f"{' and '.join(kinds)} devices")
        return thing

    def tool_set_lock(self, device_id=None, locked=None):
        """Lock or unlock."""
        thing = self.pick(device_id, ["lock"])
        if not isinstance(locked, bool):
            raise ValueError(f"'locked' must be true or false, got {locked!r}")
        thing["locked"] = locked
        return {"device_id": thing["device_id"], "locked": locked}

    def tool_set_level(self, device_id=None, level=None):
        """Brightness or target."""
        thing = self.pick(device_id, ["light", "thermo"])
        low, high = (1, 100) if thing["kind"] == "light" else (15, 28)
        if isinstance(level, bool) or not isinstance(level, int) or level < low or level > high:
            raise ValueError(f"'level' for a {thing['kind']} must be a whole number from {low} to {high}, got {level!r}")
        if not thing["on"]:
            raise ValueError(f"{thing['device_id']} is off; turn it on first")
        thing["level"] = level
        return {"device_id": thing["device_id"], "level": level}

    def tool_set_power(self, device_id=None, on=None):
        """On or off."""
        thing = self.pick(device_id, ["light", "thermo"])
        if not isinstance(on, bool):
            raise ValueError(f"'on' must be true or false, got {on!r}")
        thing["on"] = on
        return {"device_id": thing["device_id"], "on": on}

    def tool_get_room(self, room=None):
        """Sensors and devices of one room."""
        if not isinstance(room, str) or room.strip().lower() not in self.spaces:
            raise ValueError(f"unknown room {room!r}; rooms: {', '.join(sorted(self.spaces))}")
        name = room.strip().lower()
        space = self.spaces[name]
        devices = []
        for ident in space["devices"]:
            devices.append({k: v for k, v in self.things[ident].items() if k != "room"})
        return {"room": name, "occupied": space["occupied"], "temperature_c": space["temperature_c"],
                "devices": devices}

    def tool_list_rooms(self):
        """All room names."""
        return sorted(self.spaces)
