"""`hrf serve` through a real browser (Debian's chromium and chromedriver,
driven by Selenium): the steps a user takes, a screenshot of each in
test-output/web/ (or $HRF_TEST_OUTPUT/web). Without a browser these tests
skip, unless HRF_REQUIRE_BROWSER is set (as .ci/run sets it): then a
missing browser fails them."""

import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from conftest import CORPUS, ROOT, many_writes, start_server

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver")
OUT = Path(os.environ.get("HRF_TEST_OUTPUT", ROOT / "test-output")) / "web"
FIG6 = (CORPUS / "hrf" / "hrf14-fig6.litmus").read_text()

if not (CHROMIUM and DRIVER):
    if os.environ.get("HRF_REQUIRE_BROWSER"):
        pytest.fail("HRF_REQUIRE_BROWSER is set but chromium or chromedriver is missing", pytrace=False)
    pytest.skip("no chromium and chromedriver (apt-get install chromium chromium-driver)", allow_module_level=True)

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402


@pytest.fixture(scope="module")
def server():
    proc, url = start_server("--workers", "2", "--seconds", "2")
    yield url
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1500,1100"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    OUT.mkdir(parents=True, exist_ok=True)
    yield driver
    driver.quit()


def wait(driver, cond, what: str, seconds: float = 30):
    return WebDriverWait(driver, seconds).until(lambda d: cond(d), message=f"waiting for {what}")


def shot(driver, name: str) -> None:
    driver.save_screenshot(str(OUT / f"{name}.png"))


def text(driver, css: str) -> str:
    """The text of the first element `css` selects ("" if none), read in
    one step (the page redraws its cards at each answer)."""
    return driver.execute_script("const e = document.querySelector(arguments[0]); return e ? e.innerText : '';", css)


def card(driver, model: str) -> str:
    return text(driver, f'.card[data-model="{model}"]')


def choose_models(driver, names) -> None:
    for box in driver.find_elements(By.CSS_SELECTOR, "#models input"):
        if box.is_selected() != (box.get_attribute("value") in names):
            box.click()


def fresh(driver, server: str):
    """The page loaded anew, its first check answered."""
    driver.get("about:blank")
    driver.get(server + "/")
    wait(driver, answered, "the first check")
    return driver


def answered(driver) -> bool:
    """The last edit is answered (none waits for its debounce or reply)."""
    return driver.execute_script("return document.body.dataset.state") == "done"


def test_a_users_steps(server, browser):
    d = browser
    d.get(server + "/")
    wait(d, answered, "the first check")
    # 1. load Fig. 6 of [HRF14] from the menu, choose hrf-direct and hrf-indirect
    Select(d.find_element(By.ID, "corpus")).select_by_value("rsp/corrupt-mp.litmus")
    wait(d, lambda d: "corrupt" in d.find_element(By.ID, "test").get_attribute("value"), "corrupt-mp's text")
    Select(d.find_element(By.ID, "corpus")).select_by_value("hrf/hrf14-fig6.litmus")
    choose_models(d, {"hrf-direct", "hrf-indirect"})
    wait(d, lambda d: d.find_element(By.ID, "test").get_attribute("value") == FIG6, "Fig. 6's text")
    wait(d, lambda d: answered(d) and len(d.find_elements(By.CSS_SELECTOR, ".card")) == 2, "two verdict cards")
    # [HRF14] Fig. 6: racy in HRF-direct, race-free in HRF-indirect
    assert "racy" in card(d, "hrf-direct") and "race-free" in card(d, "hrf-indirect")
    race = text(d, '.card[data-model="hrf-direct"] .flag')
    assert "heterogeneous_race" in race and "P0, line 14" in race and "P2, line 26" in race
    shot(d, "01-fig6-racy-under-hrf-direct")

    # 2. click through to the race's execution graph
    d.find_element(By.CSS_SELECTOR, '.card[data-model="hrf-direct"] .graph-link').click()
    wait(d, lambda d: "heterogeneous_race" in text(d, "#graph-label"), "the race's graph")
    wait(d, lambda d: d.execute_script("return document.getElementById('graph').naturalWidth") > 100, "the SVG")
    shot(d, "02-the-race-drawn")

    # 3. edit line 14 into a syntax error: marked at its line and column
    area = d.find_element(By.ID, "test")
    area.click()
    area.send_keys(Keys.CONTROL, Keys.HOME)
    area.send_keys(*([Keys.DOWN] * 13), Keys.HOME, "@")
    wait(d, lambda d: answered(d) and text(d, "#error"), "the error")
    error = text(d, "#error")
    assert "LitmusSyntaxError at line 14, column 1" in error, error
    assert text(d, "#gutter .err") == "14"
    assert text(d, "#backdrop .col") == "@"
    edited = area.get_attribute("value")
    assert edited.split("\n")[13].startswith("@")
    shot(d, "03-syntax-error-marked")

    # 4. the permalink, opened in a fresh page, gives the same state
    link = d.find_element(By.ID, "permalink").get_attribute("href")
    d.get("about:blank")
    d.get(link)
    wait(d, lambda d: d.find_element(By.ID, "test").get_attribute("value") == edited, "the test from the link")
    chosen = {b.get_attribute("value") for b in d.find_elements(By.CSS_SELECTOR, "#models input") if b.is_selected()}
    assert chosen == {"hrf-direct", "hrf-indirect"}
    wait(d, lambda d: "line 14, column 1" in text(d, "#error"), "the error again")
    shot(d, "04-permalink-same-state")

    # 5. the machine side: corrupt MP is unsound under [RSP15]'s old scheme
    Select(d.find_element(By.ID, "corpus")).select_by_value("rsp/corrupt-mp.litmus")
    wait(d, lambda d: "corrupt" in d.find_element(By.ID, "test").get_attribute("value"), "corrupt-mp's text")
    d.find_element(By.CSS_SELECTOR, "#soundbox summary").click()
    Select(d.find_element(By.ID, "scheme")).select_by_value("rsp-old")
    d.find_element(By.ID, "sound-run").click()
    wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, ".sound-verdict"), "the soundness verdict")
    assert text(d, ".sound-verdict") == "unsound"
    wait(d, lambda d: d.execute_script("return document.getElementById('sound-trace').naturalWidth") > 100, "trace")
    d.execute_script("document.getElementById('soundbox').scrollIntoView()")
    shot(d, "05-soundness-trace")


def set_text(driver, element_id: str, text: str) -> None:
    driver.execute_script(
        "const e = document.getElementById(arguments[0]); e.value = arguments[1];e.dispatchEvent(new Event('input'));",
        element_id,
        text,
    )


def test_bad_input_on_the_page(server, browser):
    d = fresh(browser, server)
    choose_models(d, {"sc"})
    # a cat model including /etc/passwd: refused, located in the cat text
    d.find_element(By.CSS_SELECTOR, "#catbox summary").click()
    set_text(d, "cat", '"mine"\ninclude "/etc/passwd"\nacyclic po as sc\n')
    d.find_element(By.ID, "cat-on").click()
    wait(d, lambda d: "refused" in text(d, "#cat-error"), "the include refused")
    assert "at line 2" in text(d, "#cat-error")
    shot(d, "06-cat-include-refused")
    d.find_element(By.ID, "cat-on").click()
    # a 10 MB paste: the server refuses it, the page says so
    set_text(d, "test", "C huge\n" + "x" * (10 << 20))
    wait(d, lambda d: "TooLarge" in text(d, "#error"), "the size refusal")
    shot(d, "07-huge-paste-refused")
    # a test that explodes: stopped by the server's time limit, no verdict
    set_text(d, "test", many_writes(4, 4, 4, observe=False))
    wait(d, lambda d: "reached" in card(d, "sc"), "a limit of the server", seconds=60)
    assert "incomplete" in card(d, "sc")
    shot(d, "08-explosive-test-limited")
    # and the server still serves
    set_text(d, "test", FIG6)
    wait(d, lambda d: "Ok" in card(d, "sc") and answered(d), "Fig. 6 under sc")


# ---- what the page shows is current, or marked as not current
def test_a_pending_check_greys_the_previous_answer(server, browser):
    d = fresh(browser, server)
    assert "stale" not in d.find_element(By.ID, "right").get_attribute("class")
    # an edit: until its answer, the previous cards, table and graph are greyed, the status spins
    set_text(d, "test", FIG6.replace("*X = 1", "*X = 2"))
    assert "stale" in d.find_element(By.ID, "right").get_attribute("class")
    assert "busy" in d.find_element(By.ID, "status").get_attribute("class")
    shot(d, "09-pending-greyed")
    wait(d, answered, "the edit's answer")
    assert "stale" not in d.find_element(By.ID, "right").get_attribute("class")


def test_the_soundness_panel_is_cleared_when_the_test_changes(server, browser):
    d = fresh(browser, server)
    Select(d.find_element(By.ID, "corpus")).select_by_value("rsp/corrupt-mp.litmus")
    wait(d, lambda d: "corrupt" in d.find_element(By.ID, "test").get_attribute("value"), "corrupt-mp's text")
    d.find_element(By.CSS_SELECTOR, "#soundbox summary").click()
    Select(d.find_element(By.ID, "scheme")).select_by_value("rsp-old")
    d.find_element(By.ID, "sound-run").click()
    wait(d, lambda d: text(d, ".sound-verdict") == "unsound", "the soundness verdict")
    # another test: the verdict was about the old one, and is no longer shown
    Select(d.find_element(By.ID, "corpus")).select_by_value("hrf/hrf14-fig6.litmus")
    wait(d, lambda d: "hrf14-fig6" in d.find_element(By.ID, "test").get_attribute("value"), "Fig. 6's text")
    wait(d, lambda d: "check soundness again" in text(d, "#sound-out"), "the panel cleared")
    assert not d.find_elements(By.CSS_SELECTOR, ".sound-verdict")
    assert not d.find_element(By.ID, "sound-trace").is_displayed()
    shot(d, "10-soundness-cleared-on-change")


def test_a_cat_error_belongs_to_the_cat_card_alone(server, browser):
    d = fresh(browser, server)
    choose_models(d, {"sc", "hrf-direct"})
    wait(d, lambda d: answered(d) and "Ok" in card(d, "sc"), "sc's card")
    d.find_element(By.CSS_SELECTOR, "#catbox summary").click()
    set_text(d, "cat", '"mine"\nacyclic po | nosuchrelation as sc\n')
    d.find_element(By.ID, "cat-on").click()
    wait(d, lambda d: answered(d) and text(d, "#cat-error"), "the cat model's error")
    # the built-in models keep their answers; the error is the cat model's box and card
    assert "Ok" in card(d, "sc") and "racy" in card(d, "hrf-direct")
    assert "nosuchrelation" in text(d, "#cat-error") and not text(d, "#error")
    assert "nosuchrelation" in card(d, "cat model")
    shot(d, "11-cat-error-its-own")
    d.find_element(By.ID, "cat-on").click()


def test_a_refusal_looks_like_one_and_names_the_models_that_read_the_test(server, browser):
    d = fresh(browser, server)
    Select(d.find_element(By.ID, "corpus")).select_by_value("ptx7/SpinMP.litmus")
    choose_models(d, {"hrf-direct", "ptx-7.5"})
    wait(d, lambda d: "SpinMP" in d.find_element(By.ID, "test").get_attribute("value"), "SpinMP's text")
    wait(d, lambda d: answered(d) and "refuses this test" in card(d, "hrf-direct"), "the refusal")
    refusal = card(d, "hrf-direct")
    assert "models that read it:" in refusal and "ptx-7.5" in refusal
    # not painted as a syntax error: no red line, no error box
    assert not d.find_elements(By.CSS_SELECTOR, "#gutter .err") and not text(d, "#error")
    assert "Ok" in card(d, "ptx-7.5")
    # the models that cannot read a PTX test are marked in the list; the ? column has its legend
    marked = {b.text.strip() for b in d.find_elements(By.CSS_SELECTOR, "#models label.cannot")}
    assert "opencl" in marked and "ptx-7.5" not in marked and "sc" not in marked
    assert "? : no verdict" in text(d, "#outcomes caption")
    shot(d, "12-refusal-and-readers")


def test_the_graph_zooms_and_downloads(server, browser):
    d = fresh(browser, server)
    Select(d.find_element(By.ID, "corpus")).select_by_value("hrf/hrf14-fig6.litmus")
    choose_models(d, {"hrf-direct"})
    wait(d, lambda d: answered(d) and d.find_elements(By.CSS_SELECTOR, ".graph-link"), "the race")
    d.find_element(By.CSS_SELECTOR, ".graph-link").click()
    wait(d, lambda d: d.execute_script("return document.getElementById('graph').naturalWidth") > 100, "the SVG")
    href = d.find_element(By.ID, "graph-download").get_attribute("href")
    assert (
        href.startswith("blob:")
        and d.find_element(By.ID, "graph-download").get_attribute("download") == "execution.svg"
    )

    def width(d):
        return d.execute_script("return document.getElementById('graph').getBoundingClientRect().width")

    before = width(d)
    d.find_element(By.ID, "zoom-in").click()
    # the new width once the page has laid it out (a loaded machine may take a frame or two)
    wait(d, lambda d: width(d) > before, "the zoomed graph")
    shot(d, "13-graph-zoomed")


def test_the_graph_comes_with_the_check_not_a_second_search(server, browser):
    d = fresh(browser, server)
    Select(d.find_element(By.ID, "corpus")).select_by_value("hrf/hrf14-fig6.litmus")
    choose_models(d, {"hrf-direct"})
    wait(d, lambda d: answered(d) and "racy" in card(d, "hrf-direct"), "the check")
    d.execute_script("performance.clearResourceTimings()")
    set_text(d, "test", FIG6.replace("*X = 1", "*X = 3"))
    wait(d, answered, "the edit's answer")
    wait(d, lambda d: d.execute_script("return document.getElementById('graph').naturalWidth") > 100, "the graph")
    graph_requests = d.execute_script(
        "return performance.getEntriesByType('resource').filter(e => e.name.includes('/api/graph')).length"
    )
    assert graph_requests == 0
    assert "of" in text(d, "#graph-label")
    # stepping asks for the next drawing, with a sign of work until it comes
    d.find_element(By.ID, "next").click()
    wait(d, lambda d: text(d, "#graph-label").startswith("2 of"), "the next execution")


def test_the_editor_keeps_long_lines_whole_and_marks_an_error_on_them(server, browser):
    # A long line neither wraps nor is cut: the text area scrolls sideways,
    # the highlight layer and the line numbers follow it, and an error at the
    # line's far end is marked where the text is.
    d = fresh(browser, server)
    long_name = "X" + "y" * 300
    broken = FIG6.replace("*X = 1", f"*X = 1; *{long_name} = @")
    set_text(d, "test", broken)
    wait(d, answered, "the long line's answer")
    geo = d.execute_script(
        "const t = document.getElementById('test'), b = document.getElementById('backdrop');"
        "t.scrollLeft = t.scrollWidth; t.scrollTop = t.scrollHeight; t.dispatchEvent(new Event('scroll'));"
        "const lineH = parseFloat(getComputedStyle(t).lineHeight);"
        "const lines = t.value.split('\\n').length;"
        "return {sw: t.scrollWidth, cw: t.clientWidth, left: t.scrollLeft, bleft: b.scrollLeft,"
        " rows: Math.round((t.scrollHeight - 8) / lineH), lines: lines, top: t.scrollTop,"
        " gtop: document.getElementById('gutter').scrollTop, btop: b.scrollTop,"
        " gutter: document.getElementById('gutter').innerText.trim().split('\\n').length,"
        " mark: (document.querySelector('#backdrop .col, #backdrop mark') || {}).textContent || ''};"
    )
    assert geo["sw"] > 2 * geo["cw"] and geo["left"] > 0  # the line is whole, reached by scrolling
    assert geo["bleft"] == geo["left"]  # the highlight layer scrolled with the text
    assert geo["top"] > 0 and geo["gtop"] == geo["btop"] == geo["top"]  # the numbers too, to the last line
    assert geo["gutter"] == geo["lines"] and geo["rows"] <= geo["lines"] + 1  # no line wrapped
    assert geo["mark"]  # the error is marked in the text
    shot(d, "15-long-line-scrolled")


def test_undefined_behaviour_is_named_not_called_a_race(server, browser):
    # ptx-8.0's flag for a copy's destination read before the copy completes names
    # the undefined behaviour: the card does not call the test racy (results.flag_word)
    d = fresh(browser, server)
    Select(d.find_element(By.ID, "corpus")).select_by_value("ptx8/bulk-group-no-wait.litmus")
    choose_models(d, {"ptx-8.0"})
    wait(d, lambda d: "bulk-group-no-wait" in d.find_element(By.ID, "test").get_attribute("value"), "the test's text")
    wait(d, lambda d: answered(d) and d.find_elements(By.CSS_SELECTOR, '.card[data-model="ptx-8.0"]'), "the card")
    assert "undefined: async_copy_incomplete" in card(d, "ptx-8.0") and "racy" not in card(d, "ptx-8.0")
    assert "async_copy_incomplete" in text(d, '.card[data-model="ptx-8.0"] .flag')
