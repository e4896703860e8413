"""Issue 31, point 5: a log on another clock is still the log, and the JVM's shapes.

A Spring Boot service logs in its own time zone: Spring Boot 2's logback stamps (`2026-11-30 19:44:03.120`) carry
no zone, so a service in Asia/Shanghai (+08:00) has every line 8 h "after" its container's end when read as UTC;
Spring Boot 3's stamps carry the zone (`2026-11-30T19:44:03.120+08:00`). The line to cite is the root `Caused
by:` of an exception chain (a database's "Access denied for user", "Communications link failure"), or the
`Description:` of Spring Boot's failure analysis, not the empty ERROR line above it.

`clock_variants` builds one crash log with its stamps in UTC, in local time without a zone, and with a zone:
tests/engine/test_log_clock_cases.py checks the cited line is the same.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from core.sim.demo.kit import Json, Story, cstatus, node, terminated, waiting
from tests.engine.ff_terminal_cases import at
from tests.engine.test_rule_cases import lifecycle

Case = tuple[list[Story], Json, Json]
SHANGHAI = timezone(timedelta(hours=8))
NEW_YORK = timezone(timedelta(hours=-5))


def boot2(moment: datetime, ms: int, zone: timezone | None) -> str:
    """Spring Boot 2's logback stamp: the clock's own wall time, no zone (UTC when `zone` is None)."""
    local = moment.astimezone(zone) if zone is not None else moment
    return local.strftime("%Y-%m-%d %H:%M:%S") + f".{ms:03d}"


def boot3(moment: datetime, ms: int, zone: timezone) -> str:
    """Spring Boot 3's stamp: ISO 8601 with the zone's offset."""
    local = moment.astimezone(zone)
    return local.strftime("%Y-%m-%dT%H:%M:%S") + f".{ms:03d}" + local.strftime("%z")[:3] + ":" + local.strftime(
        "%z"
    )[3:]


def port_in_use(end: datetime, stamp) -> str:  # type: ignore[no-untyped-def]
    """Spring Boot's failure analysis when its web server's port is taken."""
    start = end - timedelta(seconds=6)
    return (
        f"{stamp(start, 412)}  INFO 1 --- [           main] c.a.orders.OrdersApplication             : Starting "
        "OrdersApplication v2.7.18 using Java 17.0.9 with PID 1 (/app/orders.jar started by app in /app)\n"
        f"{stamp(start, 418)}  INFO 1 --- [           main] c.a.orders.OrdersApplication             : No active "
        "profile set, falling back to 1 default profile: \"default\"\n"
        f"{stamp(end - timedelta(seconds=2), 201)}  INFO 1 --- [           main] "
        "o.s.b.w.embedded.tomcat.TomcatWebServer  : Tomcat initialized with port(s): 8080 (http)\n"
        f"{stamp(end, 95)}  INFO 1 --- [           main] o.apache.catalina.core.StandardService   : Stopping service "
        "[Tomcat]\n"
        f"{stamp(end, 110)}  INFO 1 --- [           main] ConditionEvaluationReportLoggingListener : \n"
        "\n"
        "Error starting ApplicationContext. To display the conditions report re-run your application with 'debug' "
        "enabled.\n"
        f"{stamp(end, 120)} ERROR 1 --- [           main] o.s.b.d.LoggingFailureAnalysisReporter   : \n"
        "\n"
        "***************************\n"
        "APPLICATION FAILED TO START\n"
        "***************************\n"
        "\n"
        "Description:\n"
        "\n"
        "Web server failed to start. Port 8080 was already in use.\n"
        "\n"
        "Action:\n"
        "\n"
        "Identify and stop the process that's listening on port 8080 or configure this application to listen on "
        "another port.\n"
        "\n"
    )


def access_denied(end: datetime, stamp) -> str:  # type: ignore[no-untyped-def]
    """A Spring Boot batch job whose database refuses its user: Hikari's error, then the chain to its root."""
    start = end - timedelta(seconds=9)
    return (
        f"{stamp(start, 7)}  INFO 1 --- [           main] c.a.ledger.LedgerExportJob               : Starting "
        "LedgerExportJob v1.4.2 using Java 17.0.9 with PID 1 (/app/ledger-export.jar started by app in /app)\n"
        f"{stamp(end - timedelta(seconds=1), 530)}  INFO 1 --- [           main] "
        "com.zaxxer.hikari.HikariDataSource       : HikariPool-1 - Starting...\n"
        f"{stamp(end, 233)} ERROR 1 --- [           main] com.zaxxer.hikari.pool.HikariPool        : HikariPool-1 - "
        "Exception during pool initialization.\n"
        "\n"
        "java.sql.SQLException: Access denied for user 'ledger'@'10.42.3.17' (using password: YES)\n"
        "\tat com.mysql.cj.jdbc.exceptions.SQLError.createSQLException(SQLError.java:130) ~[mysql-connector-j-8.0.33"
        ".jar!/:8.0.33]\n"
        "\tat com.mysql.cj.jdbc.exceptions.SQLExceptionsMapping.translateException(SQLExceptionsMapping.java:122) "
        "~[mysql-connector-j-8.0.33.jar!/:8.0.33]\n"
        "\tat com.mysql.cj.jdbc.ConnectionImpl.createNewIO(ConnectionImpl.java:828) ~[mysql-connector-j-8.0.33.jar!/"
        ":8.0.33]\n"
        "\tat com.zaxxer.hikari.pool.PoolBase.newConnection(PoolBase.java:359) ~[HikariCP-4.0.3.jar!/:na]\n"
        f"{stamp(end, 241)}  WARN 1 --- [           main] s.c.a.AnnotationConfigApplicationContext : Exception "
        "encountered during context initialization - cancelling refresh attempt: org.springframework.beans.factory."
        "BeanCreationException: Error creating bean with name 'ledgerJob': Unsatisfied dependency\n"
        f"{stamp(end, 262)} ERROR 1 --- [           main] o.s.boot.SpringApplication               : Application run "
        "failed\n"
        "\n"
        "org.springframework.beans.factory.UnsatisfiedDependencyException: Error creating bean with name 'ledgerJob' "
        "defined in URL [jar:file:/app/ledger-export.jar!/BOOT-INF/classes!/com/acme/ledger/LedgerJob.class]: "
        "Unsatisfied dependency expressed through constructor parameter 0\n"
        "\tat org.springframework.beans.factory.support.ConstructorResolver.createArgumentArray(ConstructorResolver"
        ".java:801) ~[spring-beans-5.3.31.jar!/:5.3.31]\n"
        "\tat org.springframework.boot.SpringApplication.run(SpringApplication.java:1295) ~[spring-boot-2.7.18.jar!/"
        ":2.7.18]\n"
        "\tat com.acme.ledger.LedgerExportJob.main(LedgerExportJob.java:12) ~[classes!/:1.4.2]\n"
        "Caused by: org.springframework.beans.factory.BeanCreationException: Error creating bean with name "
        "'dataSource': Failed to initialize pool: Access denied for user 'ledger'@'10.42.3.17' (using password: "
        "YES)\n"
        "\tat org.springframework.beans.factory.support.AbstractAutowireCapableBeanFactory.initializeBean("
        "AbstractAutowireCapableBeanFactory.java:1804) ~[spring-beans-5.3.31.jar!/:5.3.31]\n"
        "\t... 27 common frames omitted\n"
        "Caused by: java.sql.SQLException: Access denied for user 'ledger'@'10.42.3.17' (using password: YES)\n"
        "\tat com.mysql.cj.jdbc.exceptions.SQLError.createSQLException(SQLError.java:130) ~[mysql-connector-j-8.0.33"
        ".jar!/:8.0.33]\n"
        "\tat com.zaxxer.hikari.pool.HikariPool.<init>(HikariPool.java:115) ~[HikariCP-4.0.3.jar!/:na]\n"
        "\t... 41 common frames omitted\n"
        "\n"
    )


def communications_failure(end: datetime, stamp) -> str:  # type: ignore[no-untyped-def]
    """MySQL Connector/J that cannot reach its server: the chain ends in `Communications link failure`."""
    start = end - timedelta(seconds=31)
    return (
        f"{stamp(start, 880)}  INFO 1 --- [           main] com.zaxxer.hikari.HikariDataSource       : "
        "HikariPool-1 - Starting...\n"
        f"{stamp(end, 902)} ERROR 1 --- [           main] com.zaxxer.hikari.pool.HikariPool        : HikariPool-1 - "
        "Exception during pool initialization.\n"
        "\n"
        "com.mysql.cj.jdbc.exceptions.CommunicationsException: Communications link failure\n"
        "\n"
        "The last packet sent successfully to the server was 0 milliseconds ago. The driver has not received any "
        "packets from the server.\n"
        "\tat com.mysql.cj.jdbc.exceptions.SQLError.createCommunicationsException(SQLError.java:174) ~[mysql-connector"
        "-j-8.0.33.jar!/:8.0.33]\n"
        "\tat com.mysql.cj.jdbc.ConnectionImpl.createNewIO(ConnectionImpl.java:828) ~[mysql-connector-j-8.0.33.jar!/"
        ":8.0.33]\n"
        "Caused by: com.mysql.cj.exceptions.CJCommunicationsException: Communications link failure\n"
        "\n"
        "The last packet sent successfully to the server was 0 milliseconds ago. The driver has not received any "
        "packets from the server.\n"
        "\tat java.base/jdk.internal.reflect.NativeConstructorAccessorImpl.newInstance0(Native Method) ~[na:na]\n"
        "\tat com.mysql.cj.exceptions.ExceptionFactory.createCommunicationsException(ExceptionFactory.java:151) "
        "~[mysql-connector-j-8.0.33.jar!/:8.0.33]\n"
        "\t... 58 common frames omitted\n"
        "Caused by: java.net.UnknownHostException: ledger-db.finance.svc.cluster.local: Name or service not known\n"
        "\tat java.base/java.net.Inet6AddressImpl.lookupAllHostAddr(Native Method) ~[na:na]\n"
        "\tat java.base/java.net.InetAddress.getAllByName0(InetAddress.java:1519) ~[na:na]\n"
        "\t... 61 common frames omitted\n"
        "\n"
    )


def _req(s: Story) -> Json:
    return {"cluster_id": s.cluster, "workload_id": s.id}


def looping_service(key: str, name: str, log: str, *, last_end: float, code: int = 1) -> Story:
    """A JVM inference service in a crash loop: its previous instance ended `last_end` minutes ago."""
    s = Story(key, name, "recsys", "Running", phase_at=3 * 60, created=3 * 60 + 4, kind="Inference",
              image="ghcr.io/acme/orders:2.7.18", command="java -jar /app/orders.jar", running_pods=1,
              gpu=0)
    s.add_phase(s.created, "Pending").add_phase(s.phase_at, "Running")
    pod = s.add_pod(node="cpu-m-07", created=s.created - 0.5, k8s_phase="CrashLoopBackOff", updated=last_end)
    s.add_event(last_end - 0.2, "BackOff", f"Back-off restarting failed container main in pod {pod.name}_{s.ns}"
                f"({pod.uid})", pod=pod.name, obj_uid=pod.uid)
    back_off = f"back-off 5m0s restarting failed container=main pod={pod.name}_{s.ns}({pod.uid})"
    s.add_kube_pod(pod, [cstatus("main", s.image, waiting("CrashLoopBackOff", back_off),
                                 terminated("Error", code, last_end + 0.15, last_end), restarts=37)],
                   phase="Running")
    s.add_log(pod.name, log, previous=True)
    s.nodes.append(node("cpu-m-07", gpu="none"))
    return s


def failed_job(key: str, name: str, log: str, *, end: float, code: int = 1) -> Story:
    """A JVM batch job that failed once (restartPolicy Never): the log is its only instance's."""
    s = Story(key, name, "recsys", "Failed", phase_at=end - 0.2, created=end + 2, image="ghcr.io/acme/ledger:1.4.2",
              command="java -jar /app/ledger-export.jar", gpu=0)
    pod = s.add_pod(node="cpu-m-07", created=end + 1.5, k8s_phase="Error", updated=end, completed=end)
    s.phase_message = f"Workload failed: pod {pod.name} container main terminated (Error), exit code {code}"
    lifecycle(s, end + 0.2, s.phase_at, "Failed", s.phase_message)
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("Error", code, end + 0.2, end))], phase="Failed")
    s.add_log(pod.name, log)
    s.nodes.append(node("cpu-m-07", gpu="none"))
    return s


def case_spring_port_local_time() -> Case:
    """Spring Boot 2 logging in Shanghai time without a zone: every line reads 8 h after the container's end."""
    end = at(4.5)
    s = looping_service("ff-clock-01", "orders-api", port_in_use(end, lambda m, ms: boot2(m, ms, SHANGHAI)),
                        last_end=4.5)
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR", "recurrence": 1,
        "evidence": ["Web server failed to start. Port 8080 was already in use.", "no zone", "local time"],
        "noEvidence": ["no line that explains", "LoggingFailureAnalysisReporter"],
    }


def case_jdbc_access_denied_local_time() -> Case:
    """A ledger export job logging in Shanghai time without a zone; its database refuses its user."""
    end = at(22.3)
    s = failed_job("ff-clock-02", "ledger-export", access_denied(end, lambda m, ms: boot2(m, ms, SHANGHAI)), end=22.3)
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR", "recurrence": 1,
        "evidence": ["Caused by: java.sql.SQLException: Access denied for user 'ledger'", "local time"],
        "noEvidence": ["no line that explains", "Application run failed"],
    }


def case_jdbc_link_failure_zoned() -> Case:
    """Spring Boot 3's zoned stamps (+08:00): read at their word, they fall before the end; the chain's root is
    the database's host that does not resolve."""
    end = at(41.2)
    s = failed_job("ff-clock-03", "ledger-reconcile", communications_failure(end, lambda m, ms: boot3(m, ms, SHANGHAI)),
                   end=41.2)
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR", "recurrence": 1,
        "evidence": ["Caused by: java.net.UnknownHostException: ledger-db.finance.svc.cluster.local"],
        "noEvidence": ["no line that explains", "reads later than"],
    }


# The same crash in three clocks: (name, stamp writer); the cited line must not depend on it.
CLOCKS = {
    "utc": lambda m, ms: boot2(m, ms, None),
    "local-no-zone": lambda m, ms: boot2(m, ms, SHANGHAI),
    "local-west-no-zone": lambda m, ms: boot2(m, ms, NEW_YORK),
    "zoned": lambda m, ms: boot3(m, ms, SHANGHAI),
}


def clock_variants(kind: str, clock: str) -> Case:
    """One of the cases above with its stamps written by `clock` (tests/engine/test_log_clock_cases.py)."""
    if kind == "port":
        end = at(4.5)
        s = looping_service("ff-clock-v1", "orders-api", port_in_use(end, CLOCKS[clock]), last_end=4.5)
    else:
        end = at(22.3)
        s = failed_job("ff-clock-v2", "ledger-export", access_denied(end, CLOCKS[clock]), end=22.3)
    return [s], _req(s), {"outcome": "diagnosed", "category": "CRASH_APP_ERROR"}


CASES = {
    "log-spring-port-local-time": case_spring_port_local_time,
    "log-jdbc-access-denied-local-time": case_jdbc_access_denied_local_time,
    "log-jdbc-link-failure-zoned": case_jdbc_link_failure_zoned,
}
