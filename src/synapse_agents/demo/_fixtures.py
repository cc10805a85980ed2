"""The small in-memory data the example agents' tools read: orders, help articles, accounts.

Nothing here touches a disk or a network. Tickets created by the support agent live in a list for
the life of the process, which is enough for a demo.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from typing_extensions import TypedDict


class Order(TypedDict):
    """An order in the fake shop."""

    order_id: str
    customer: str
    status: Literal['processing', 'shipped', 'delivered', 'cancelled']
    items: list[str]
    total_eur: float
    carrier: str | None
    eta: str | None


class Article(TypedDict):
    """A help-centre article."""

    slug: str
    title: str
    body: str


class Ticket(TypedDict):
    """A support ticket opened by the support agent."""

    ticket_id: str
    subject: str
    priority: Literal['low', 'normal', 'high']
    status: Literal['open']


ORDERS: dict[str, Order] = {
    'A-1001': {
        'order_id': 'A-1001',
        'customer': 'Ada Lovelace',
        'status': 'shipped',
        'items': ['Mechanical keyboard', 'USB-C cable'],
        'total_eur': 129.90,
        'carrier': 'DHL',
        'eta': '2 business days',
    },
    'A-1002': {
        'order_id': 'A-1002',
        'customer': 'Alan Turing',
        'status': 'processing',
        'items': ['27-inch monitor'],
        'total_eur': 349.00,
        'carrier': None,
        'eta': None,
    },
    'B-2001': {
        'order_id': 'B-2001',
        'customer': 'Grace Hopper',
        'status': 'delivered',
        'items': ['Noise-cancelling headphones'],
        'total_eur': 199.00,
        'carrier': 'UPS',
        'eta': None,
    },
}

ARTICLES: list[Article] = [
    {
        'slug': 'refund-policy',
        'title': 'Refund policy',
        'body': 'Unused items can be returned within 30 days for a full refund to the original payment card.',
    },
    {
        'slug': 'shipping-times',
        'title': 'Shipping times and carriers',
        'body': 'Orders ship within 24 hours. DHL and UPS deliver in 2 to 4 business days in the EU.',
    },
    {
        'slug': 'reset-password',
        'title': 'Resetting your password',
        'body': 'Use "Forgot password" on the sign-in page; the reset link is valid for one hour.',
    },
    {
        'slug': 'invoices',
        'title': 'Downloading invoices',
        'body': 'Invoices are in Account > Billing. Each invoice is a PDF you can download or email.',
    },
    {
        'slug': 'damaged-item',
        'title': 'What to do if an item arrives damaged',
        'body': 'Take a photo of the damage and open a ticket; we send a replacement at no cost.',
    },
]

TICKETS: list[Ticket] = []


@dataclass
class Invoice:
    """An invoice of the fake account."""

    number: str
    amount_eur: float
    status: Literal['paid', 'open']


@dataclass
class AccountDeps:
    """The run context of ``deps_agent``: the signed-in tenant, as an app would inject it."""

    account_id: str
    company: str
    plan: Literal['free', 'pro', 'enterprise']
    seats_used: int
    seats_total: int
    invoices: list[Invoice] = field(default_factory=list[Invoice])


def sample_account() -> AccountDeps:
    """The fake account every ``deps_agent`` run gets."""
    return AccountDeps(
        account_id='acct_demo_42',
        company='Example Robotics GmbH',
        plan='pro',
        seats_used=7,
        seats_total=10,
        invoices=[
            Invoice('INV-2024-001', 490.0, 'paid'),
            Invoice('INV-2024-002', 490.0, 'paid'),
            Invoice('INV-2024-003', 510.0, 'open'),
        ],
    )


def search_articles(query: str, limit: int) -> list[Article]:
    """The articles sharing the most words with ``query``, best first."""
    words = {word.lower().strip('?.,!') for word in query.split() if len(word) > 2}

    def score(article: Article) -> int:
        text = f'{article["title"]} {article["body"]} {article["slug"]}'.lower()
        return sum(1 for word in words if word.rstrip('s') in text)

    ranked = sorted(ARTICLES, key=score, reverse=True)
    return [article for article in ranked if score(article) > 0][: max(limit, 0)]
