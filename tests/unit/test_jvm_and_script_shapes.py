"""The JVM's failure shapes (issue 31.5) and a script's (issue 37.3, 37.4): Spring Boot's failure analysis cited
by its `Description:`, an exception chain by its root cause, a shell's syntax error, a setting the program says it
lacks. Real wording: Spring Boot 2 and 3, logback, HikariCP, MySQL Connector/J, dash, busybox ash, bash, zsh."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.diagnosis.log_scan import LogKind, explaining_line
from tests.engine.ff_clock_cases import access_denied, communications_failure, port_in_use

END = datetime(2026, 11, 30, 11, 44, 3, tzinfo=UTC)


def lines(text: str) -> list[str]:
    return text.rstrip("\n").split("\n")


def utc(moment: datetime, ms: int) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S") + f".{ms:03d}"


def test_spring_boots_failure_analysis_is_cited_by_its_description() -> None:
    log = lines(port_in_use(END, utc))
    finding = explaining_line(log)
    assert finding is not None and finding.kind is LogKind.FAILURE_ANALYSIS and finding.program == "java"
    assert finding.text == "Web server failed to start. Port 8080 was already in use."
    # Without its description, the banner explains nothing: the other lines are read as usual.
    cut = [line for line in log if not line.startswith(("Description:", "Web server"))]
    other = explaining_line(cut)
    assert other is None or other.kind is not LogKind.FAILURE_ANALYSIS


SPRING3_DATASOURCE = lines("""
2026-11-30T19:44:01.113+08:00  INFO 1 --- [orders] [           main] c.a.orders.OrdersApplication             : \
Starting OrdersApplication v3.2.4 using Java 21.0.2 with PID 1
2026-11-30T19:44:03.120+08:00 ERROR 1 --- [orders] [           main] o.s.b.d.LoggingFailureAnalysisReporter   : \


***************************
APPLICATION FAILED TO START
***************************

Description:

Failed to configure a DataSource: 'url' attribute is not specified and no embedded datasource could be configured.

Reason: Failed to determine a suitable driver class


Action:

Consider the following:
\tIf you want an embedded database (H2, HSQL or Derby), please put it on the classpath.
""")


def test_a_spring_boot_3_analysis_with_a_zone_and_a_reason() -> None:
    finding = explaining_line(SPRING3_DATASOURCE, before=END, own=True)
    assert finding is not None and finding.kind is LogKind.FAILURE_ANALYSIS
    assert finding.text.startswith("Failed to configure a DataSource: 'url' attribute is not specified")


@pytest.mark.parametrize(
    ("make", "root"),
    [
        (access_denied, "Caused by: java.sql.SQLException: Access denied for user 'ledger'@'10.42.3.17'"),
        (communications_failure, "Caused by: java.net.UnknownHostException: ledger-db.finance.svc.cluster.local"),
    ],
)
def test_a_java_chain_is_cited_by_its_root_cause(make, root: str) -> None:  # type: ignore[no-untyped-def]
    finding = explaining_line(lines(make(END, utc)))
    assert finding is not None and finding.kind is LogKind.JAVA_EXCEPTION and finding.text.startswith(root)


def test_the_root_is_the_last_chains_even_when_it_has_no_cause() -> None:
    log = [
        "java.lang.IllegalStateException: retrying",
        "\tat com.acme.Retry.run(Retry.java:10)",
        "Caused by: java.net.ConnectException: Connection refused",
        "\tat java.base/sun.nio.ch.Net.connect0(Native Method)",
        "2026-11-30 11:44:03.120 ERROR 1 --- [main] o.s.boot.SpringApplication : Application run failed",
        "",
        "org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'reportJob': the "
        "report template /templates/daily.ftl is missing",
        "\tat org.springframework.beans.factory.support.AbstractBeanFactory.doGetBean(AbstractBeanFactory.java:333)",
        "\t... 12 common frames omitted",
    ]
    finding = explaining_line(log)
    assert finding is not None and finding.line_no == 7


def test_a_dotted_python_exception_without_frames_is_no_java_chain() -> None:
    log = ["requests.exceptions.ConnectionError: HTTPSConnectionPool(host='x', port=443)", "Killed"]
    finding = explaining_line(log)
    assert finding is not None and finding.kind is not LogKind.JAVA_EXCEPTION


@pytest.mark.parametrize(
    ("line", "program"),
    [
        ('sh: 1: Syntax error: "(" unexpected', "sh"),  # dash
        ('sh: syntax error: unexpected "fi" (expecting "then")', "sh"),  # busybox ash
        ("sh: line 3: syntax error: unexpected end of file", "sh"),
        ("bash: -c: line 1: syntax error near unexpected token `)'", "bash"),
        ("bash: -c: line 1: unexpected EOF while looking for matching `\"'", "bash"),
        ("/entrypoint.sh: line 12: syntax error: unexpected end of file", "sh"),
        ("zsh:1: parse error near `)'", "zsh"),
    ],
)
def test_a_shells_syntax_error_is_the_scripts_last_word(line: str, program: str) -> None:
    log = ["Fetching config...", "curl: (6) Could not resolve host: cfg.internal", line]
    finding = explaining_line(log)
    assert finding is not None and finding.kind is LogKind.SHELL_SYNTAX and finding.line_no == 3
    assert finding.program == program


@pytest.mark.parametrize(
    "line",
    [
        "DEPLOY_ENV is not set",
        "ERROR: missing required environment variable DATABASE_URL",
        "sh: DB_HOST: parameter not set",
        "/entrypoint.sh: line 4: MODEL_ID: parameter null or not set",
        "fatal: OPENAI_API_KEY must be set",
    ],
)
def test_a_setting_the_program_lacks(line: str) -> None:
    finding = explaining_line(["starting orders-ranker 3.2.0", line])
    assert finding is not None and finding.line_no == 2


def test_a_setting_logged_as_a_warning_is_not_the_cause() -> None:
    log = ["WARNING: HF_TOKEN is not set, downloading anonymously", "loss 0.31 step 900", "Killed"]
    finding = explaining_line(log)
    assert finding is not None and finding.kind is LogKind.KILLED
    assert explaining_line(["INFO CUDA_VISIBLE_DEVICES is empty: running on CPU"]) is None
