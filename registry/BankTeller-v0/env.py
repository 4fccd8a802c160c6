"""BankTeller: settle a customer's disputes and transfers with banking tools (shipped tool env)."""

import json
import random

from spadegym.program import ToolEnv, read_difficulty

FIRST = ["Ana", "Ben", "Chloe", "Dmitri", "Esther", "Farid", "Greta", "Hugo", "Iris", "Jonas",
         "Keiko", "Luis", "Mona", "Nils", "Olga", "Pavel"]
LAST = ["Silva", "Berg", "Okafor", "Novak", "Lindqvist", "Moreau", "Tanaka", "Reyes", "Kowal"]
MERCHANTS = ["GreenGrocer", "CityTransit", "BookNook", "CafeLuna", "PowerGrid Util",
             "StreamFlix", "FitClub", "PharmaPlus", "HardwareHub", "PetPals", "FuelStop"]


def call(tool, **arguments):
    """Format one tool call the way the player writes it."""
    return "<tool_call>" + json.dumps({"name": tool, "arguments": arguments}) + "</tool_call>"


def money(cents):
    """Cents as a dollar string."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100:02d}"


def to_cents(value, what):
    """Validate a positive dollar amount with at most two decimals."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"'{what}' must be a number of dollars such as 12.50")
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"'{what}' = {value!r} is not a number") from None
    if not (0 < number < 10000000):
        raise ValueError(f"'{what}' = {value!r} must be positive and below 10,000,000")
    cents = round(number * 100)
    if abs(cents - number * 100) > 1e-6:
        raise ValueError(f"'{what}' = {value!r} has more than two decimals")
    return cents


def need_str(value, what, example):
    """Validate a non-empty string argument."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"'{what}' must be a non-empty string, e.g. {example!r}")
    return value.strip()


class BankTellerEnv(ToolEnv):
    """BankTeller: fix a customer's account with banking tools.

    You are a bank support agent. The first message describes a customer's request: find their
    accounts, dispute duplicated card charges, top up checking from savings to an exact target
    and, at higher levels, pay a bill to another customer. Tools: find_customer, get_account,
    list_transactions, dispute_transaction and transfer. Call them with
    <tool_call>{"name": "find_customer", "arguments": {"name": "..."}}</tool_call>. Amounts are
    dollars with two decimals. When done, reply <answer>X</answer> with the customer's savings
    balance afterwards (e.g. 1234.56). You win when the accounts end exactly as requested."""

    max_turns = 20
    skill = "Tool_Use"
    tools = [
        {"name": "find_customer",
         "description": "Find customers whose full name contains the query (case-insensitive).",
         "parameters": {"type": "object", "properties": {
             "name": {"type": "string", "description": "part of the customer's name"}},
             "required": ["name"]}},
        {"name": "get_account", "description": "Owner, type and balance of one account.",
         "parameters": {"type": "object", "properties": {
             "account_id": {"type": "string", "description": "e.g. CHK-1234"}},
             "required": ["account_id"]}},
        {"name": "list_transactions",
         "description": "All card transactions on an account, oldest first.",
         "parameters": {"type": "object", "properties": {
             "account_id": {"type": "string", "description": "e.g. CHK-1234"}},
             "required": ["account_id"]}},
        {"name": "dispute_transaction",
         "description": "Dispute a card charge: its amount is refunded to the account at once.",
         "parameters": {"type": "object", "properties": {
             "account_id": {"type": "string", "description": "the account charged"},
             "transaction_id": {"type": "string", "description": "e.g. T-50123"}},
             "required": ["account_id", "transaction_id"]}},
        {"name": "transfer", "description": "Move money between two accounts.",
         "parameters": {"type": "object", "properties": {
             "from_account": {"type": "string", "description": "source account id"},
             "to_account": {"type": "string", "description": "destination account id"},
             "amount": {"type": "number", "description": "dollars, positive, two decimals"}},
             "required": ["from_account", "to_account", "amount"]}},
    ]

    def reset(self, seed=None, options=None):
        """Build customers, accounts and charges from ``seed`` and the difficulty."""
        self.rng = random.Random(seed)
        self.difficulty = read_difficulty(options, default=2)
        self.turn = 0
        self.done = False
        rng = self.rng
        d = self.difficulty
        self.accounts = {}
        self.customers = {}
        self.transactions = {}
        ids = rng.sample(range(1000, 9999), 12)
        last = rng.choice(LAST)
        firsts = rng.sample(FIRST, 3)
        people = [f"{firsts[0]} {last}", f"{firsts[1]} {last}", f"{firsts[2]} {rng.choice(LAST)}"]
        for k, person in enumerate(people):
            chk = f"CHK-{ids[2 * k]}"
            sav = f"SAV-{ids[2 * k + 1]}"
            self.customers[person] = {"customer": person, "accounts": [chk, sav]}
            self.accounts[chk] = {"owner": person, "type": "checking",
                                  "balance": rng.randint(5000, 90000)}
            self.accounts[sav] = {"owner": person, "type": "savings",
                                  "balance": rng.randint(300000, 900000)}
            self.transactions[chk] = []
        self.client = people[0]
        self.payee = people[2] if d >= 3 else None
        self.checking, self.savings = self.customers[self.client]["accounts"]
        txid = rng.randint(10000, 60000)
        n_dups = 1 + (d - 1) // 2
        n_tx = 4 + 2 * d
        plain = []
        for _ in range(n_tx):
            plain.append((rng.randint(1, 28), rng.choice(MERCHANTS), rng.randint(250, 15000)))
        dups = rng.sample(range(n_tx), n_dups)
        events = []
        for k, (day, merchant, amount) in enumerate(plain):
            events.append((day, k, 0, merchant, amount))
            if k in dups:
                events.append((day, k, 1, merchant, amount))
            elif rng.random() < 0.3:
                # same merchant and amount on another day is a legitimate repeat, not a duplicate
                events.append((min(28, day + rng.randint(1, 5)), k, 2, merchant, amount))
        events.sort()
        self.duplicates = []
        for day, _, kind, merchant, amount in events:
            txid += rng.randint(1, 40)
            tid = f"T-{txid}"
            self.transactions[self.checking].append(
                {"transaction_id": tid, "date": f"2024-05-{day:02d}", "merchant": merchant,
                 "amount": money(-amount), "disputed": False})
            if kind == 1:
                self.duplicates.append(tid)
        for other in people[1:]:
            acc = self.customers[other]["accounts"][0]
            for _ in range(3):
                txid += rng.randint(1, 40)
                self.transactions[acc].append(
                    {"transaction_id": f"T-{txid}", "date": f"2024-05-{rng.randint(1, 28):02d}",
                     "merchant": rng.choice(MERCHANTS),
                     "amount": money(-rng.randint(250, 9000)), "disputed": False})
        self.amounts = {}
        for acc, rows in self.transactions.items():
            for row in rows:
                self.amounts[row["transaction_id"]] = (acc, -round(float(row["amount"]) * 100))
        refund = sum(self.amounts[t][1] for t in self.duplicates)
        after = self.accounts[self.checking]["balance"] + refund
        self.target = (after // 10000 + rng.randint(2, 9)) * 10000
        self.bill = rng.randint(20, 90) * 1000 + rng.choice([0, 50]) if self.payee else 0
        self.start_balances = {k: v["balance"] for k, v in self.accounts.items()}
        return self.render_intro(), {"turn": 0}

    def render_intro(self):
        """The task, the tools and the formats."""
        steps = [
            f"Find {self.client}'s checking account and dispute every duplicated card charge: "
            "when two charges have the same merchant, amount and date, dispute the later one "
            "(higher transaction id) only. Repeats on different dates are legitimate.",
            f"Then transfer from {self.client}'s savings to checking exactly enough that "
            f"checking holds {money(self.target)}.",
        ]
        if self.payee:
            steps.append(f"Finally pay {money(self.bill)} from {self.client}'s savings to "
                         f"{self.payee}'s checking account (rent).")
        text = "\n".join(f"{k + 1}. {s}" for k, s in enumerate(steps))
        return (
            f"Customer request:\n{text}\n"
            "Finish with <answer>X</answer>, X = the customer's savings balance afterwards.\n\n"
            f"Tools (JSON specs):\n{self.describe_tools()}\n\n"
            'Call a tool: <tool_call>{"name": "find_customer", "arguments": {"name": "Ana"}}'
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

    def account(self, value, what="account_id"):
        """Look up an account id or explain the mistake."""
        acc = need_str(value, what, "CHK-1234").upper()
        if acc not in self.accounts:
            raise ValueError(f"no account {acc!r}; use find_customer to get account ids")
        return acc

    def tool_find_customer(self, name=None):
        """Find customers by name."""
        query = need_str(name, "name", "Ana").lower()
        found = [c for p, c in self.customers.items() if query in p.lower()]
        if not found:
            raise ValueError(f"no customer matches {name!r}; try part of the family name")
        return found

    def tool_get_account(self, account_id=None):
        """Show one account."""
        acc = self.account(account_id)
        row = self.accounts[acc]
        return {"account_id": acc, "owner": row["owner"], "type": row["type"],
                "balance": money(row["balance"])}

    def tool_list_transactions(self, account_id=None):
        """List the card transactions of an account."""
        acc = self.account(account_id)
        rows = self.transactions.get(acc, [])
        if not rows:
            return "no card transactions on this account"
        return rows

    def tool_dispute_transaction(self, account_id=None, transaction_id=None):
        """Refund a charge."""
        acc = self.account(account_id)
        tid = need_str(transaction_id, "transaction_id", "T-50123").upper()
        rows = [r for r in self.transactions.get(acc, []) if r["transaction_id"] == tid]
        if not rows:
            raise ValueError(f"transaction {tid!r} is not on account {acc}")
        if rows[0]["disputed"]:
            raise ValueError(f"transaction {tid} is already disputed")
        rows[0]["disputed"] = True
        self.accounts[acc]["balance"] += self.amounts[tid][1]
        return {"transaction_id": tid, "refunded": money(self.amounts[tid][1]),
                "new_balance": money(self.accounts[acc]["balance"])}

    def tool_transfer(self, from_account=None, to_account=None, amount=None):
        """Move money."""
        src = self.account(from_account, "from_account")
        dst = self.account(to_account, "to_account")
        if src == dst:
            raise ValueError("from_account and to_account must differ")
        cents = to_cents(amount, "amount")
        if cents > self.accounts[src]["balance"]:
            raise ValueError(f"insufficient funds: {src} holds "
                             f"{money(self.accounts[src]['balance'])}")
        self.accounts[src]["balance"] -= cents
        self.accounts[dst]["balance"] += cents
        return {"from_balance": money(self.accounts[src]["balance"]),
                "to_balance": money(self.accounts[dst]["balance"])}

    def expected_balances(self):
        """The balances after the request is carried out."""
        out = dict(self.start_balances)
        refund = sum(self.amounts[t][1] for t in self.duplicates)
        top_up = self.target - out[self.checking] - refund
        out[self.checking] = self.target
        out[self.savings] -= top_up + self.bill
        if self.payee:
            out[self.customers[self.payee]["accounts"][0]] += self.bill
        return out

    def check(self, answer):
        """1.0 when the disputes and balances are exactly right and the answer matches."""
        disputed = sorted(r["transaction_id"] for rows in self.transactions.values()
                          for r in rows if r["disputed"])
        if disputed != sorted(self.duplicates):
            return 0.0
        expected = self.expected_balances()
        if any(self.accounts[k]["balance"] != v for k, v in expected.items()):
            return 0.0
        text = str(answer).strip().replace("$", "").replace(",", "")
        try:
            value = round(float(text) * 100)
        except ValueError:
            return 0.0
        return 1.0 if value == expected[self.savings] else 0.0

    def solution(self):
        """Look up, dispute, transfer, pay, answer."""
        replies = [call("find_customer", name=self.client),
                   call("list_transactions", account_id=self.checking),
                   call("get_account", account_id=self.checking)]
        for tid in self.duplicates:
            replies.append(call("dispute_transaction", account_id=self.checking,
                                transaction_id=tid))
        refund = sum(self.amounts[t][1] for t in self.duplicates)
        top_up = self.target - self.start_balances[self.checking] - refund
        replies.append(call("transfer", from_account=self.savings, to_account=self.checking,
                            amount=float(money(top_up))))
        if self.payee:
            replies.append(call("find_customer", name=self.payee))
            replies.append(call("transfer", from_account=self.savings,
                                to_account=self.customers[self.payee]["accounts"][0],
                                amount=float(money(self.bill))))
        replies.append(call("get_account", account_id=self.savings))
        replies.append(f"<answer>{money(self.expected_balances()[self.savings])}</answer>")
        return replies

    def hint(self):
        """Approach only."""
        return ("A duplicate needs the same merchant, amount and date; dispute only the later "
                "copy. Do the disputes before computing the top-up, because refunds change the "
                "checking balance, and read the balances back before answering.")
