"""WarehouseClerk: pick, ship and restock with warehouse tools (a shipped tool-use env)."""

import json
import random

from spadegym.program import ToolEnv, read_difficulty

ITEMS = ["bolt M6", "hinge", "cable 2m", "LED strip", "fan 80mm", "relay", "gasket", "spring",
         "caster", "bracket", "fuse 5A", "valve"]
CUSTOMERS = ["Acme Tools", "Birch Labs", "Corvid Ltd", "Dune Motors", "Elm Clinic", "Fable Inc"]


def call(tool, **arguments):
    """Format one tool call the way the player writes it."""
    return "<tool_call>" + json.dumps({"name": tool, "arguments": arguments}) + "</tool_call>"


def need_qty(value, what="quantity"):
    """Validate a positive whole quantity."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 999:
        raise ValueError(f"'{what}' must be an integer from 1 to 999, got {value!r}")
    return value


class WarehouseClerkEnv(ToolEnv):
    """WarehouseClerk: ship a customer's orders and restock.

    You run a small warehouse. Orders can only ship from the DOCK bin, so stock must first be
    moved there from the storage bins. The first message names the customer whose open orders
    to ship and, at higher levels, a restocking rule. Tools: list_orders, check_stock,
    move_stock, ship_order, reorder. Call them with
    <tool_call>{"name": "list_orders", "arguments": {"customer": "..."}}</tool_call>. When done,
    reply <answer>N</answer> with the number of units shipped. You win when exactly that
    customer's orders shipped, the restock orders are exact, and N is right."""

    max_turns = 30
    skill = "Tool_Use"
    tools = [
        {"name": "list_orders", "description": "Open and shipped orders of a customer.",
         "parameters": {"type": "object", "properties": {
             "customer": {"type": "string", "description": "customer name"}},
             "required": ["customer"]}},
        {"name": "check_stock",
         "description": "Units of a SKU per bin, its reorder point and target level.",
         "parameters": {"type": "object", "properties": {
             "sku": {"type": "string", "description": "e.g. SKU-204"}},
             "required": ["sku"]}},
        {"name": "move_stock", "description": "Move units of a SKU from one bin to another.",
         "parameters": {"type": "object", "properties": {
             "sku": {"type": "string", "description": "e.g. SKU-204"},
             "from_bin": {"type": "string", "description": "e.g. B2"},
             "to_bin": {"type": "string", "description": "e.g. DOCK"},
             "quantity": {"type": "integer", "description": "units to move"}},
             "required": ["sku", "from_bin", "to_bin", "quantity"]}},
        {"name": "ship_order", "description": "Ship an open order; all its units must be in DOCK.",
         "parameters": {"type": "object", "properties": {
             "order_id": {"type": "string", "description": "e.g. SO-1203"}},
             "required": ["order_id"]}},
        {"name": "reorder", "description": "Place a purchase order with the supplier for a SKU.",
         "parameters": {"type": "object", "properties": {
             "sku": {"type": "string", "description": "e.g. SKU-204"},
             "quantity": {"type": "integer", "description": "units to buy"}},
             "required": ["sku", "quantity"]}},
    ]

    def reset(self, seed=None, options=None):
        """Build stock, orders and the request."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.turn = 0
        self.done = False
        rng = self.rng
        d = self.difficulty
        self.bins = ["A1", "A2", "B1", "B2", "C1", "DOCK"]
        skus = rng.sample(range(100, 999), 6)
        self.items = {}
        for k, num in enumerate(skus):
            sku = f"SKU-{num}"
            stock = {b: 0 for b in self.bins}
            for b in rng.sample(self.bins[:5], 2):
                stock[b] = rng.randint(3, 14)
            self.items[sku] = {"sku": sku, "name": ITEMS[(num + k) % len(ITEMS)], "stock": stock,
                               "reorder_point": rng.randint(6, 12), "target": rng.randint(20, 30)}
        names = rng.sample(CUSTOMERS, 3)
        self.customer = names[0]
        self.orders = {}
        oid = rng.randint(1000, 5000)
        n_mine = 1 + d // 2
        plan = [self.customer] * n_mine + [names[1], names[2]]
        rng.shuffle(plan)
        need = {s: 0 for s in self.items}
        for who in plan:
            oid += rng.randint(1, 50)
            lines = {}
            for sku in rng.sample(sorted(self.items), rng.randint(1, 2)):
                lines[sku] = rng.randint(1, 4)
            if who == self.customer:
                for sku, q in lines.items():
                    need[sku] += q
            self.orders[f"SO-{oid}"] = {"order_id": f"SO-{oid}", "customer": who, "lines": lines,
                                        "status": "open"}
        for sku, q in need.items():
            total = sum(self.items[sku]["stock"].values())
            if total < q:
                # never ask for more than exists: top up the first storage bin that holds stock
                first = [b for b in self.bins[:5] if self.items[sku]["stock"][b]][0]
                self.items[sku]["stock"][first] += q - total + rng.randint(0, 3)
        self.restock = d >= 3
        self.mine = sorted(k for k, o in self.orders.items() if o["customer"] == self.customer)
        self.shipped_units = sum(need.values())
        self.reorders = {}
        self.want_reorders = {}
        if self.restock:
            for sku, q in need.items():
                if q == 0:
                    continue
                left = sum(self.items[sku]["stock"].values()) - q
                if left < self.items[sku]["reorder_point"]:
                    self.want_reorders[sku] = self.items[sku]["target"] - left
        self.start_totals = {s: sum(i["stock"].values()) for s, i in self.items.items()}
        self.start_stock = json.loads(json.dumps({s: i["stock"] for s, i in self.items.items()}))
        return self.render_intro(), {"turn": 0}

    def render_intro(self):
        """The task, the tools and the formats."""
        steps = [f"Ship every open order of {self.customer} (and no other customer's). Orders "
                 "ship only from DOCK: move the units there from storage first."]
        if self.restock:
            steps.append("Afterwards, for each SKU that appeared in those orders: if its total "
                         "stock over all bins is below its reorder point, reorder exactly enough "
                         "to bring the total back to its target level.")
        text = "\n".join(f"{k + 1}. {s}" for k, s in enumerate(steps))
        catalogue = ", ".join(f"{k} ({v['name']})" for k, v in sorted(self.items.items()))
        return (
            f"Warehouse bins: {', '.join(self.bins)}. Catalogue: {catalogue}.\nTasks:\n{text}\n"
            "Finish with <answer>N</answer>, N = the number of units shipped.\n\n"
            f"Tools (JSON specs):\n{self.describe_tools()}\n\n"
            'Call a tool: <tool_call>{"name": "list_orders", "arguments": {"customer": "..."}}'
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

    def sku(self, value):
        """Validate a SKU."""
        if not isinstance(value, str) or value.strip().upper() not in self.items:
            raise ValueError(f"unknown sku {value!r}; order lines list the SKUs (e.g. SKU-204)")
        return value.strip().upper()

    def bin(self, value, what):
        """Validate a bin name."""
        if not isinstance(value, str) or value.strip().upper() not in self.bins:
            raise ValueError(f"'{what}' must be one of {', '.join(self.bins)}, got {value!r}")
        return value.strip().upper()

    def tool_list_orders(self, customer=None):
        """List a customer's orders."""
        if not isinstance(customer, str) or not customer.strip():
            raise ValueError("'customer' must be a customer name")
        rows = [o for o in self.orders.values()
                if o["customer"].lower() == customer.strip().lower()]
        if not rows:
            raise ValueError(f"no orders for {customer!r}; customers: {', '.join(CUSTOMERS)}")
        return rows

    def tool_check_stock(self, sku=None):
        """Show stock."""
        item = self.items[self.sku(sku)]
        return {"sku": item["sku"], "name": item["name"],
                "bins": {b: q for b, q in item["stock"].items() if q},
                "total": sum(item["stock"].values()), "reorder_point": item["reorder_point"],
                "target": item["target"], "on_order": self.reorders.get(item["sku"], 0)}

    def tool_move_stock(self, sku=None, from_bin=None, to_bin=None, quantity=None):
        """Move units between bins."""
        key = self.sku(sku)
        src = self.bin(from_bin, "from_bin")
        dst = self.bin(to_bin, "to_bin")
        qty = need_qty(quantity)
        if src == dst:
            raise ValueError("from_bin and to_bin must differ")
        stock = self.items[key]["stock"]
        if stock[src] < qty:
            raise ValueError(f"{src} holds only {stock[src]} unit(s) of {key}")
        stock[src] -= qty
        stock[dst] += qty
        return {"sku": key, src: stock[src], dst: stock[dst]}

    def tool_ship_order(self, order_id=None):
        """Ship an order from DOCK."""
        if not isinstance(order_id, str) or order_id.strip().upper() not in self.orders:
            raise ValueError(f"no order {order_id!r}; use list_orders")
        order = self.orders[order_id.strip().upper()]
        if order["status"] != "open":
            raise ValueError(f"order {order['order_id']} has already shipped")
        short = [f"{s} (DOCK has {self.items[s]['stock']['DOCK']}, needs {q})"
                 for s, q in order["lines"].items() if self.items[s]["stock"]["DOCK"] < q]
        if short:
            raise ValueError("not enough stock in DOCK: " + "; ".join(short))
        for s, q in order["lines"].items():
            self.items[s]["stock"]["DOCK"] -= q
        order["status"] = "shipped"
        return {"order_id": order["order_id"], "status": "shipped"}

    def tool_reorder(self, sku=None, quantity=None):
        """Buy stock."""
        key = self.sku(sku)
        qty = need_qty(quantity)
        self.reorders[key] = self.reorders.get(key, 0) + qty
        return {"sku": key, "on_order": self.reorders[key]}

    def check(self, answer):
        """1.0 when exactly the right orders shipped and reorders are exact."""
        shipped = sorted(k for k, o in self.orders.items() if o["status"] == "shipped")
        if shipped != self.mine or self.reorders != self.want_reorders:
            return 0.0
        try:
            count = int(str(answer).strip())
        except ValueError:
            return 0.0
        return 1.0 if count == self.shipped_units else 0.0

    def solution(self):
        """Plan the picks from the starting stock, ship, restock, answer."""
        replies = [call("list_orders", customer=self.customer)]
        stock = json.loads(json.dumps(self.start_stock))
        need = {}
        for oid in self.mine:
            for s, q in self.orders[oid]["lines"].items():
                need[s] = need.get(s, 0) + q
        for s in sorted(need):
            replies.append(call("check_stock", sku=s))
            missing = need[s] - stock[s]["DOCK"]
            for b in self.bins[:5]:
                if missing <= 0:
                    break
                take = min(missing, stock[s][b])
                if take:
                    replies.append(call("move_stock", sku=s, from_bin=b, to_bin="DOCK",
                                        quantity=take))
                    missing -= take
        for oid in self.mine:
            replies.append(call("ship_order", order_id=oid))
        for s in sorted(self.want_reorders):
            replies.append(call("reorder", sku=s, quantity=self.want_reorders[s]))
        replies.append(f"<answer>{self.shipped_units}</answer>")
        return replies

    def hint(self):
        """Approach only."""
        return ("Add up what all of the customer's orders need per SKU before moving stock, so "
                "each SKU is moved to DOCK once. Restock from the totals left after shipping, "
                "comparing them with each SKU's reorder point.")
