"""CartCheckout: shop a list with catalogue and cart tools, then check out (shipped tool env)."""

import json
import random

from spadegym.program import ToolEnv, read_difficulty

CATEGORIES = {
    "kettle": ["SteelBoil", "QuickHeat", "AquaPro", "BrewMate", "TeaTime", "HotSpring"],
    "headphones": ["BassLine", "QuietOne", "SoundPod", "EchoMax", "AirTune", "StudioX"],
    "backpack": ["TrailPack", "UrbanCarry", "Nomad 30", "DayHiker", "CityLite", "Summit 45"],
    "desk lamp": ["BrightArc", "GlowDesk", "LumaFlex", "ReadWell", "NightOwl", "BeamPro"],
    "yoga mat": ["ZenGrip", "FlexMat", "CorePad", "StretchOn", "BalanceX", "CalmFloor"],
    "water bottle": ["HydroGo", "SipSafe", "ChillFlask", "AquaLoop", "PeakSip", "StreamCup"],
    "keyboard": ["TypeFast", "ClickPro", "SilentKeys", "MechaOne", "SlimBoard", "KeyZen"],
}
COUPONS = ["SAVE10", "SPRING15", "WELCOME5", "BULK20", "VIP12"]


def call(tool, **arguments):
    """Format one tool call the way the player writes it."""
    return "<tool_call>" + json.dumps({"name": tool, "arguments": arguments}) + "</tool_call>"


def money(cents):
    """Cents as a dollar string."""
    return f"{cents // 100}.{cents % 100:02d}"


class CartCheckoutEnv(ToolEnv):
    """CartCheckout: fill a shopping cart from a list and check out.

    You are a shopping assistant. The first message gives a shopping list whose items are
    described by conditions (category, rating, price, stock), a coupon code, and a cart that
    may already hold things that are not on the list. Tools: search_products, view_cart,
    add_to_cart, remove_from_cart, apply_coupon, checkout. Call them with
    <tool_call>{"name": "search_products", "arguments": {"query": "kettle"}}</tool_call>. After
    checking out, reply <answer>X</answer> with the order total in dollars. You win when the
    order holds exactly the listed items with the coupon applied and X is right."""

    max_turns = 20
    skill = "Tool_Use"
    tools = [
        {"name": "search_products",
         "description": "Products whose category or name contains the query: id, price, "
                        "rating (0-5) and units in stock.",
         "parameters": {"type": "object", "properties": {
             "query": {"type": "string", "description": "e.g. 'kettle'"}},
             "required": ["query"]}},
        {"name": "view_cart", "description": "The cart lines, subtotal and coupon.",
         "parameters": {"type": "object", "properties": {}, "required": []}},
        {"name": "add_to_cart", "description": "Add units of a product (adds to an existing line).",
         "parameters": {"type": "object", "properties": {
             "product_id": {"type": "string", "description": "e.g. P-104"},
             "quantity": {"type": "integer", "description": "1 to 10"}},
             "required": ["product_id", "quantity"]}},
        {"name": "remove_from_cart", "description": "Remove a product's whole line from the cart.",
         "parameters": {"type": "object", "properties": {
             "product_id": {"type": "string", "description": "e.g. P-104"}},
             "required": ["product_id"]}},
        {"name": "apply_coupon",
         "description": "Apply a percentage coupon; it needs a minimum subtotal at checkout.",
         "parameters": {"type": "object", "properties": {
             "code": {"type": "string", "description": "coupon code"}},
             "required": ["code"]}},
        {"name": "checkout", "description": "Place the order for the cart; returns the total.",
         "parameters": {"type": "object", "properties": {}, "required": []}},
    ]

    def reset(self, seed=None, options=None):
        """Build the catalogue, the list and the cart."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.turn = 0
        self.done = False
        rng = self.rng
        d = self.difficulty
        cats = rng.sample(sorted(CATEGORIES), 4)
        self.products = {}
        pid = rng.randint(100, 400)
        for cat in cats:
            for name in rng.sample(CATEGORIES[cat], 3 + (d + 1) // 2):
                pid += rng.randint(1, 7)
                self.products[f"P-{pid}"] = {
                    "product_id": f"P-{pid}", "name": f"{name} {cat}", "category": cat,
                    "price": rng.randint(8, 120) * 100 + rng.choice([0, 49, 99]),
                    "rating": rng.randint(25, 50) / 10, "stock": rng.choice([0, 1, 3, 8, 12])}
        n_lines = [1, 2, 2, 3, 3][d - 1]
        self.wanted = {}
        self.rules = []
        for k, cat in enumerate(cats[:n_lines]):
            rows = [p for p in self.products.values() if p["category"] == cat]
            qty = rng.choice([1, 2, 3]) if k % 2 == 0 else 1
            if k % 2 == 0:
                floor = rng.choice([3.5, 4.0])
                ok = [p for p in rows if p["rating"] >= floor and p["stock"] >= qty]
                if not ok:
                    rows[0]["rating"], rows[0]["stock"] = 4.6, 9
                    ok = [rows[0]]
                best = min(ok, key=lambda p: (p["price"], p["product_id"]))
                self.rules.append(f"{qty} x the cheapest {cat} rated at least {floor} with "
                                  f"enough stock")
            else:
                cap = sorted(p["price"] for p in rows)[len(rows) // 2] + 100
                ok = [p for p in rows if p["price"] <= cap and p["stock"] >= qty]
                if not ok:
                    rows[0]["price"], rows[0]["stock"] = cap - 100, 5
                    ok = [rows[0]]
                best = max(ok, key=lambda p: (p["rating"], -p["price"], p["product_id"]))
                self.rules.append(f"{qty} x the highest-rated {cat} priced at most "
                                  f"${money(cap)} that is in stock (ties: cheaper)")
            self.wanted[best["product_id"]] = qty
        extra = rng.choice([p for p in self.products.values() if p["category"] == cats[-1]])
        extra["stock"] = max(2, extra["stock"])
        self.cart = {extra["product_id"]: 1}
        self.coupon = rng.choice(COUPONS)
        self.percent = int("".join(c for c in self.coupon if c.isdigit()))
        subtotal = sum(self.products[p]["price"] * q for p, q in self.wanted.items())
        self.minimum = max(1000, (subtotal // 2000) * 1000)
        self.applied = None
        self.order = None
        return self.render_intro(), {"turn": 0}

    def render_intro(self):
        """The task, the tools and the formats."""
        items = "\n".join(f"- {r}" for r in self.rules)
        return (
            f"Shopping list:\n{items}\n"
            "The cart already holds an item from an earlier visit that is not on the list: "
            f"remove it. Apply coupon {self.coupon}, then check out.\n"
            "Finish with <answer>X</answer>, X = the order total in dollars (e.g. 123.45).\n\n"
            f"Tools (JSON specs):\n{self.describe_tools()}\n\n"
            'Call a tool: <tool_call>{"name": "search_products", "arguments": {"query": '
            '"kettle"}}</tool_call>. Several calls per reply are fine; the answer ends the '
            f"episode.\nTurn 0 of {self.max_turns}."
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

    def product(self, value):
        """Validate a product id."""
        if not isinstance(value, str) or value.strip().upper() not in self.products:
            raise ValueError(f"no product {value!r}; use search_products to get ids like P-104")
        return value.strip().upper()

    def open_cart(self):
        """Refuse cart changes after checkout."""
        if self.order is not None:
            raise ValueError("the order is already placed; the cart is closed")

    def subtotal(self):
        """The cart's value before the coupon, in cents."""
        return sum(self.products[p]["price"] * q for p, q in self.cart.items())

    def tool_search_products(self, query=None):
        """Search the catalogue."""
        if not isinstance(query, str) or len(query.strip()) < 2:
            raise ValueError("'query' must be a string of at least 2 characters, e.g. 'lamp'")
        q = query.strip().lower()
        rows = [{"product_id": p["product_id"], "name": p["name"], "price": money(p["price"]),
                 "rating": p["rating"], "stock": p["stock"]}
                for p in self.products.values() if q in p["name"].lower()]
        return rows if rows else f"no products match {query!r}"

    def tool_view_cart(self):
        """Show the cart."""
        lines = [{"product_id": p, "name": self.products[p]["name"], "quantity": q,
                  "unit_price": money(self.products[p]["price"])} for p, q in self.cart.items()]
        return {"lines": lines, "subtotal": money(self.subtotal()), "coupon": self.applied}

    def tool_add_to_cart(self, product_id=None, quantity=None):
        """Add units."""
        self.open_cart()
        pid = self.product(product_id)
        if isinstance(quantity, bool) or not isinstance(quantity, int) or not 1 <= quantity <= 10:
            raise ValueError(f"'quantity' must be an integer from 1 to 10, got {quantity!r}")
        total = self.cart.get(pid, 0) + quantity
        if total > self.products[pid]["stock"]:
            raise ValueError(f"only {self.products[pid]['stock']} unit(s) of {pid} in stock")
        self.cart[pid] = total
        return {"product_id": pid, "quantity_in_cart": total}

    def tool_remove_from_cart(self, product_id=None):
        """Remove a line."""
        self.open_cart()
        pid = self.product(product_id)
        if pid not in self.cart:
            raise ValueError(f"{pid} is not in the cart; use view_cart")
        del self.cart[pid]
        return f"removed {pid}"

    def tool_apply_coupon(self, code=None):
        """Attach a coupon."""
        self.open_cart()
        if not isinstance(code, str) or code.strip().upper() not in COUPONS:
            raise ValueError(f"coupon {code!r} is not valid")
        self.applied = code.strip().upper()
        return {"coupon": self.applied, "note": f"needs a subtotal of at least "
                f"${money(self.minimum)} at checkout"}

    def tool_checkout(self):
        """Place the order."""
        self.open_cart()
        if not self.cart:
            raise ValueError("the cart is empty")
        sub = self.subtotal()
        pct = 0
        if self.applied:
            if sub < self.minimum:
                raise ValueError(f"coupon {self.applied} needs a subtotal of at least "
                                 f"${money(self.minimum)}; the cart has ${money(sub)}")
            pct = int("".join(c for c in self.applied if c.isdigit()))
        total = sub - (sub * pct + 50) // 100
        self.order = {"lines": dict(self.cart), "coupon": self.applied, "total": total}
        return {"order": "placed", "subtotal": money(sub), "discount_percent": pct,
                "total": money(total)}

    def expected_total(self):
        """The right order's total in cents."""
        sub = sum(self.products[p]["price"] * q for p, q in self.wanted.items())
        return sub - (sub * self.percent + 50) // 100

    def check(self, answer):
        """1.0 when the placed order is exactly the list with the coupon and X is right."""
        if self.order is None or self.order["lines"] != self.wanted:
            return 0.0
        if self.order["coupon"] != self.coupon:
            return 0.0
        try:
            value = round(float(str(answer).strip().replace("$", "").replace(",", "")) * 100)
        except ValueError:
            return 0.0
        return 1.0 if value == self.expected_total() else 0.0

    def solution(self):
        """Search, fix the cart, coupon, checkout, answer."""
        replies = [call("view_cart")]
        cats = []
        for pid in self.wanted:
            cat = self.products[pid]["category"]
            if cat not in cats:
                cats.append(cat)
                replies.append(call("search_products", query=cat))
        for pid in list(self.cart):
            replies.append(call("remove_from_cart", product_id=pid))
        for pid, qty in self.wanted.items():
            replies.append(call("add_to_cart", product_id=pid, quantity=qty))
        replies.append(call("apply_coupon", code=self.coupon))
        replies.append(call("checkout"))
        replies.append(f"<answer>{money(self.expected_total())}</answer>")
        return replies

    def hint(self):
        """Approach only."""
        return ("Apply each condition of a list line (rating or price bound, enough stock for "
                "the quantity) before ranking the candidates. Empty the stray item from the "
                "cart first, and read the total from the checkout result.")
