"""Main-text extraction tests on realistic small-business pages."""

from __future__ import annotations

import codecs

from apps.facts.sources.html_text import decode_html, extract_main_text

HOMEPAGE = """<!DOCTYPE html>
<html lang="en-GB">
<head>
  <meta charset="utf-8">
  <title>Rosie&#8217;s Bakery &amp; Caf&eacute; &ndash; Bristol</title>
  <base href="https://rosies.example/en/">
  <style>body { font-family: serif }</style>
  <script type="application/ld+json">{"@type": "Bakery", "name": "Rosie's"}</script>
</head>
<body class="home cookie-consent-pending">
  <a class="skip-link" href="#content">Skip to content</a>
  <div class="announcement" style="display: none">Flash sale!</div>
  <header id="masthead">
    <div class="logo"><svg viewBox="0 0 10 10"><title>Rosie's logo</title></svg> Rosie's</div>
    <nav class="main-nav"><ul>
      <li><a href="/">Home</a></li>
      <li><a href="menu/">Menu</a></li>
      <li><a href="https://rosies.example/en/visit#map">Visit us</a></li>
      <li><a href="javascript:void(0)">Basket</a></li>
    </ul></nav>
  </header>
  <div id="onetrust-consent-sdk"><div class="ot-banner">
    <p>We value your privacy. We use cookies to enhance your browsing experience.</p>
    <button>Accept All</button><button>Reject All</button>
  </div></div>

  <main id="content">
    <section class="hero banner">
      <h1>Slow-fermented bread,<br>baked in Bristol</h1>
      <p>Rosie&#8217;s is an independent bakery &amp; caf&eacute; on Gloucester&nbsp;Road.
         Every loaf is     shaped by hand.</p>
    </section>

    <h2>Opening hours</h2>
    <table class="hours">
      <thead><tr><th>Day</th><th>Open</th><th>Close</th></tr></thead>
      <tbody>
        <tr><td>Monday</td><td colspan="2">Closed</td></tr>
        <tr><td>Tuesday &ndash; Friday</td><td>7:30</td><td>16:00</td></tr>
        <tr><td>Saturday</td><td>8:00</td><td>15:00</td></tr>
      </tbody>
    </table>

    <h2>What we bake</h2>
    <ul>
      <li><strong>Sourdough</strong> &ndash; white, wholemeal and
        <a href="/en/menu/rye">rye</a>
        <ul><li>Available from 8am</li></ul>
      </li>
      <li>Viennoiserie</li>
    </ul>

    <h2>FAQ</h2>
    <div class="faq">
      <h3><button aria-expanded="false" aria-controls="faq-1">Do you have vegan options?</button></h3>
      <div id="faq-1" hidden>Yes: our rye, focaccia and the <em>cinnamon buns</em> are vegan.</div>
      <h3><button aria-controls="faq-2">Can I bring my dog?</button></h3>
      <div id="faq-2" class="answer" aria-hidden="true">Dogs are welcome on the terrace.</div>
    </div>

    <dl class="facts"><dt>Parking</dt><dd>Free after 6pm on Berkeley Road.</dd><dt>Wi-Fi</dt><dd>Yes</dd></dl>

    <p class="visually-hidden" hidden>Internal: restock flour</p>
    <span aria-hidden="true">&#9733;&#9733;&#9733;</span>
    <iframe src="https://maps.example/embed"></iframe>
    <form action="/newsletter"><label>Email</label><input name="email"><button>Sign up</button></form>
    <noscript>Please enable JavaScript</noscript>
    <p>Questions? <a href="mailto:hello@rosies.example">Email us</a> or
      <a href="tel:+44117000000">call 0117 000 000</a>.
      <a href="#top">Back to top</a> &middot; <a href="../press/">Press</a>
      &middot; <a href="https://www.instagram.com/rosies#posts">Instagram</a></p>
  </main>

  <aside class="sidebar"><h3>Latest news</h3><p>We won a Great Taste award!</p></aside>
  <footer class="site-footer">
    <p>Rosie&#8217;s Bakery, 245 Gloucester Road, Bristol BS7 8NY</p>
    <p><a href="/en/privacy">Privacy</a> &copy; 2024</p>
  </footer>
  <script>document.querySelector('.hero').classList.add('loaded');</script>
</body>
</html>
"""


def test_realistic_homepage() -> None:
    page = extract_main_text(HOMEPAGE, "https://rosies.example/en/")
    assert page.title == "Rosie\u2019s Bakery & Café \u2013 Bristol"
    assert page.text == (
        "# Slow-fermented bread, baked in Bristol\n\n"
        "Rosie\u2019s is an independent bakery & café on Gloucester Road. Every loaf is shaped by hand.\n\n"
        "## Opening hours\n\n"
        "Day | Open | Close\n"
        "Monday | Closed\n"
        "Tuesday \u2013 Friday | 7:30 | 16:00\n"
        "Saturday | 8:00 | 15:00\n\n"
        "## What we bake\n\n"
        "- Sourdough \u2013 white, wholemeal and rye\n"
        "  - Available from 8am\n"
        "- Viennoiserie\n\n"
        "## FAQ\n\n"
        "### Do you have vegan options?\n\n"
        "Yes: our rye, focaccia and the cinnamon buns are vegan.\n\n"
        "### Can I bring my dog?\n\n"
        "Dogs are welcome on the terrace.\n\n"
        "Parking: Free after 6pm on Berkeley Road.\n"
        "Wi-Fi: Yes\n\n"
        "Questions? Email us or call 0117 000 000. Back to top · Press · Instagram"
    )
    for noise in (
        "cookies",
        "Accept All",
        "Skip to content",
        "Flash sale",
        "Latest news",
        "restock",
        "★",
        "Sign up",
    ):
        assert noise not in page.text, noise
    assert page.footer_text == "Rosie\u2019s Bakery, 245 Gloucester Road, Bristol BS7 8NY\n\nPrivacy © 2024"


def test_links_are_absolute_without_fragments_or_pseudo_schemes() -> None:
    page = extract_main_text(HOMEPAGE, "https://rosies.example/en/")
    assert page.links == [  # the skip link "#content" is a bare fragment: dropped
        "https://rosies.example/",
        "https://rosies.example/en/menu/",  # resolved against <base href>
        "https://rosies.example/en/visit",  # fragment removed
        "https://rosies.example/en/menu/rye",
        "https://rosies.example/press/",
        "https://www.instagram.com/rosies",
        "https://rosies.example/en/privacy",  # nav and footer links are kept for the crawler
    ]
    assert not any(link.startswith(("mailto:", "tel:", "javascript:")) for link in page.links)
    assert extract_main_text(HOMEPAGE).links == page.links  # an absolute <base href> needs no page URL


def test_page_without_main_uses_body_minus_chrome_and_adds_title_heading() -> None:
    html = """<html><head><title>Catering | Rosie's</title></head><body>
      <div id="header"><nav><a href="/">Home</a></nav></div>
      <div class="content">
        <h2>Office lunches</h2>
        <p>Sandwich platters for 10&ndash;50 people, delivered before noon.</p>
        <h2>Weddings</h2><p>Ask about our naked cakes.</p>
      </div>
      <div class="cookie-notice">This site uses cookies. <a href="/cookies">OK</a></div>
      <footer>Rosie's &copy; 2024</footer>
    </body></html>"""
    page = extract_main_text(html, "http://rosies.example/catering")
    assert page.text == (
        "# Catering | Rosie's\n\n"
        "## Office lunches\n\nSandwich platters for 10\u201350 people, delivered before noon.\n\n"
        "## Weddings\n\nAsk about our naked cakes."
    )


def test_single_article_and_nearly_empty_main() -> None:
    article = """<body><div class="layout"><article><header><h1>Our story</h1><p>By Rosie</p></header>
      <p>It started in a garage in 2009.</p><footer>Posted 3 May</footer></article>
      <div class="related"><h2>More posts</h2><p>Lots of other stories here.</p></div></div></body>"""
    assert extract_main_text(article).text == (
        "# Our story\n\nBy Rosie\n\nIt started in a garage in 2009.\n\nPosted 3 May"
    )  # the article's own header and footer are content, the rest of the page is not

    empty_main = """<body><main><div class="hero-video"></div></main>
      <div class="page"><h1>Gift cards</h1><p>Available in store in any amount from &pound;5 up to
      &pound;100, and they never expire. Ask at the counter and we will wrap it for you.</p></div></body>"""
    assert extract_main_text(empty_main).text.startswith("# Gift cards\n\nAvailable in store")


def test_broken_html() -> None:
    html = """<title>Menu</title><h1>Menu</h2><h2>Cakes</h1>
      <p>Carrot cake <b>£3.50<p>Brownie </i>£2.80</div></div>
      <ul><li>Tea<li>Coffee</ul><table><tr><td>Scone<td>£2<tr><td>Jam</table><p>Unclosed <a href="/x">link"""
    page = extract_main_text(html, "https://rosies.example/")
    assert "# Menu" in page.text and "## Cakes" in page.text
    assert "Carrot cake £3.50" in page.text and "Brownie £2.80" in page.text
    assert "- Tea\n- Coffee" in page.text
    assert "Scone | £2\nJam" in page.text
    assert page.text.endswith("Unclosed link")
    assert page.links == ["https://rosies.example/x"]


def test_layout_tables_render_as_blocks() -> None:
    html = """<body><table role="presentation" width="100%"><tr>
      <td><h1>Welcome</h1><p>Family bakery since 1972.</p></td>
      <td><h2>Hours</h2><p>Daily 8 till 5.</p></td></tr></table></body>"""
    assert (
        extract_main_text(html).text
        == "# Welcome\n\nFamily bakery since 1972.\n\n## Hours\n\nDaily 8 till 5."
    )


def test_title_fallbacks() -> None:
    og = '<html><head><meta property="og:title" content="Rosie&#39;s Menu"></head><body><p>Bread</p></body>'
    assert extract_main_text(og).title == "Rosie's Menu"
    h1 = "<body><main><h1>Opening  hours</h1><p>7 till 3</p></main></body>"
    assert extract_main_text(h1).title == "Opening hours"
    assert extract_main_text("<p>just text</p>").text == "just text"  # no title at all: no heading invented


LATIN = "<h1>Pâtisserie</h1><p>Crème brûlée, éclair au café \u2013 3 €</p>"


def test_bytes_with_meta_charset_and_http_charset() -> None:
    meta = '<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">'
    html = f"<html><head>{meta}</head><body>{LATIN}"
    page = extract_main_text(html.replace(" \u2013 3 €", "").encode("latin-1"))
    assert page.text == "# Pâtisserie\n\nCrème brûlée, éclair au café"
    cyrillic = "<p>Свежий хлеб каждый день</p>".encode("cp1251")
    assert extract_main_text(cyrillic, encoding="windows-1251").text == "Свежий хлеб каждый день"


def test_bytes_without_or_with_wrong_charset() -> None:
    # No declaration, cp1252-only bytes (euro sign, en dash): the windows-1252 fallback is used.
    assert (
        extract_main_text(LATIN.encode("cp1252")).text
        == "# Pâtisserie\n\nCrème brûlée, éclair au café \u2013 3 €"
    )
    # Declared latin-1 but actually UTF-8 (a common server default): valid UTF-8 wins.
    mislabeled = ('<meta charset="iso-8859-1">' + LATIN).encode("utf-8")
    assert "Crème brûlée" in extract_main_text(mislabeled, encoding="iso-8859-1").text
    # Declared UTF-8 but the bytes are latin-1.
    wrong = ('<meta charset="utf-8">' + LATIN).encode("cp1252")
    assert "Crème brûlée" in extract_main_text(wrong).text
    # Mostly UTF-8 with one corrupt byte: UTF-8 with a replacement character.
    corrupt = LATIN.encode("utf-8").replace(b"3 ", b"3\xff ")
    assert "Crème brûlée, éclair au café \u2013 3\ufffd €" in extract_main_text(corrupt).text


def test_boms() -> None:
    assert decode_html(codecs.BOM_UTF8 + "<p>Café</p>".encode()) == "<p>Café</p>"
    assert decode_html("<p>Café</p>".encode("utf-16")) == "<p>Café</p>"
    assert extract_main_text("\ufeff<p>Café</p>").text == "Café"
