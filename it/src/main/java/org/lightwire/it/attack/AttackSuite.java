package org.lightwire.it.attack;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.lightwire.it.Orbs;
import org.lightwire.it.ProcessHarness;
import org.lightwire.it.StdinCommands;
import org.lightwire.it.TestServer;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.lightwire.transport.link.udp.UdpClientLink;
import org.lightwire.transport.link.udp.UdpLinkConfig;
import org.lightwire.transport.protocol.HeaderFlyweight;
import org.lightwire.transport.protocol.MessageType;
import org.omg.CORBA.ORB;

/**
 * The attack suite ({@code scripts/attack.sh}): a JacORB server JVM listening on Lightwire and
 * IIOP, a {@link LiveClient} JVM calling it all the time over Lightwire, and one attack after
 * another against the server, each judged by exact counts. Datagram attacks that forge source
 * addresses or sniff the loopback run in {@code scripts/attack/lwattack.py} (root); attacks that
 * need real sockets run here. One line per attack:
 *
 * <pre>
 * ATTACK name: PASS|FAIL sent=N counted=N client_ok=N client_failed=N extra_executions=N threads=N direct_mb=N [detail]
 * </pre>
 *
 * <p>{@code sent}: datagrams (or connections) the attack sent; {@code counted}: what the server's
 * counters say it dropped or answered without effect; {@code client_ok}/{@code client_failed}:
 * the live client's calls during the attack; {@code extra_executions}: echoes the server completed
 * beyond the calls its clients saw answered (pausing the live client makes the two counts exact);
 * {@code threads} and {@code direct_mb}: the server JVM at the attack's peak. The process exits 1
 * when any attack failed.
 */
public final class AttackSuite
{
    private static final Duration ANSWER = Duration.ofSeconds(60);
    /** Threads the server may add under any attack: the Lightwire reader threads and a few of JacORB's. */
    static final long THREAD_ALLOWANCE = 24;
    /** Direct memory the server may add while 1,100 idle connections are open. */
    static final long FLOOD_DIRECT_ALLOWANCE_BYTES = 32L * 1024 * 1024;
    /** Set-ups the connect flood completes, all from one address (the attack server admits them all). */
    static final int FLOOD_SETUPS = 1_100;
    /** The attack server's request memory budget and request timeout. */
    static final long BUDGET_BYTES = 64L * 1024 * 1024;
    static final long REQUEST_TIMEOUT_MS = 3_000;

    private final String script;
    private final int port;
    private final ProcessHarness server;
    private final ProcessHarness client;
    private long newClientCalls;
    private int failures;

    private AttackSuite(final String script, final int port, final ProcessHarness server, final ProcessHarness client)
    {
        this.script = script;
        this.port = port;
        this.server = server;
        this.client = client;
    }

    public static void main(final String[] args) throws Exception
    {
        final String script = System.getProperty("lightwire.attack.script", "scripts/attack/lwattack.py");
        final int port = freePort();
        final Map<String, String> props = Orbs.lightwire(Map.of(
            "OAPort", Integer.toString(port),
            "jacorb.lightwire.server.request_timeout_ms", Long.toString(REQUEST_TIMEOUT_MS),
            "jacorb.lightwire.server.max_connections_per_address", Integer.toString(FLOOD_SETUPS + 100),
            "jacorb.lightwire.server.request_memory_bytes", Long.toString(BUDGET_BYTES)));
        final List<String> serverArgs = new ArrayList<>();
        props.forEach((k, v) ->
        {
            serverArgs.add("-p");
            serverArgs.add(k + "=" + v);
        });
        try (ProcessHarness server = ProcessHarness.start(TestServer.class, List.of("-Xmx512m", "-XX:MaxDirectMemorySize=512m"),
                serverArgs, Duration.ofSeconds(60));
             ProcessHarness client = ProcessHarness.start(LiveClient.class, List.of(), List.of(lightwireEcho(port), "4"),
                 Duration.ofSeconds(60)))
        {
            final AttackSuite suite = new AttackSuite(script, port, server, client);
            System.out.println("# server: Lightwire and IIOP on port " + port + " of 127.0.0.1; live client: 4 callers over Lightwire");
            System.out.println("# server at rest: " + server.request("stats", ANSWER));
            suite.replay("replay", 8, 4.0);
            suite.replay("duplicate", 5, 0.02);
            suite.spoofedConnects();
            suite.connectFlood();
            suite.halfSentRequests();
            suite.garbage();
            System.out.println("# server after the suite: " + server.request("stats", ANSWER));
            System.out.println(suite.failures == 0 ? "ATTACKS: all passed" : "ATTACKS: " + suite.failures + " failed");
            System.exit(suite.failures == 0 ? 0 : 1);
        }
    }

    private static String lightwireEcho(final int port)
    {
        return "corbaloc:lw:127.0.0.1:" + port + "/echo";
    }

    /** @return a port free for TCP (IIOP) and UDP (Lightwire) on 127.0.0.1. */
    private static int freePort() throws IOException
    {
        for (int attempt = 0; attempt < 50; attempt++)
        {
            try (ServerSocket tcp = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
                 DatagramSocket udp = new DatagramSocket(new InetSocketAddress("127.0.0.1", tcp.getLocalPort())))
            {
                return tcp.getLocalPort();
            }
            catch (final IOException e)
            {
                // Taken for UDP: another one.
            }
        }
        throw new IOException("no port free for both TCP and UDP on 127.0.0.1");
    }

    /** The server's and the live client's counts at one moment, the client paused. */
    private record Snapshot(Map<String, Long> server, Map<String, Long> client)
    {
        long s(final String key)
        {
            return server.getOrDefault(key, 0L);
        }

        long c(final String key)
        {
            return client.getOrDefault(key, 0L);
        }
    }

    private Snapshot pausedSnapshot() throws IOException, InterruptedException
    {
        final Map<String, Long> c = StdinCommands.parse(client.request("pause", ANSWER));
        final Map<String, Long> s = StdinCommands.parse(server.request("stats", ANSWER));
        return new Snapshot(s, c);
    }

    private Map<String, Long> serverNow() throws IOException, InterruptedException
    {
        return StdinCommands.parse(server.request("stats", ANSWER));
    }

    private void resume() throws IOException, InterruptedException
    {
        client.request("resume", ANSWER);
    }

    /**
     * Ends an attack: pauses the live client, compares counts, prints the line.
     *
     * @param peak the server's figures at the attack's peak (threads, memory), or null for now.
     * @param extraOk a further condition of the attack, with its detail.
     */
    private void judge(final String name, final Snapshot before, final long sent, final long counted, final Map<String, Long> peak,
        final boolean extraOk, final String detail) throws IOException, InterruptedException
    {
        final Snapshot after = pausedSnapshot();
        final Map<String, Long> p = peak != null ? peak : after.server();
        final long clientOk = after.c("ok") - before.c("ok");
        final long clientFailed = after.c("failed") - before.c("failed");
        // Every echo the server completed was answered to someone: the live client (plus its
        // first "ready" call) or this suite's new clients.
        final long extra = after.s("echo_calls") - (after.c("ok") + 1 + newClientCalls);
        final boolean pass = extraOk && clientFailed == 0 && clientOk > 0 && extra == 0;
        if (!pass)
        {
            failures++;
        }
        System.out.printf("ATTACK %s: %s sent=%d counted=%d client_ok=%d client_failed=%d extra_executions=%d threads=%d direct_mb=%d %s%n",
            name, pass ? "PASS" : "FAIL", sent, counted, clientOk, clientFailed, extra, p.getOrDefault("threads", -1L),
            p.getOrDefault("direct_used", 0L) / (1024 * 1024), detail);
        System.out.flush();
        resume();
    }

    private static long delta(final Snapshot before, final Map<String, Long> after, final String... keys)
    {
        long sum = 0;
        for (final String k : keys)
        {
            sum += after.getOrDefault(k, 0L) - before.s(k);
        }
        return sum;
    }

    /** Runs the python attacker; @return its RESULT pairs. */
    private Map<String, Long> python(final String... args) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of("python3", script));
        command.addAll(List.of(args));
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        final StringBuilder out = new StringBuilder();
        Map<String, Long> result = null;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = r.readLine()) != null)
            {
                out.append(line).append('\n');
                if (line.startsWith("RESULT "))
                {
                    result = StdinCommands.parse(line.substring("RESULT ".length()));
                }
            }
        }
        if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0 || result == null)
        {
            throw new IllegalStateException("the attacker " + command + " failed: " + out);
        }
        return result;
    }

    /**
     * Every datagram to and from the server, captured on the loopback while the live client
     * calls, sent once more from its own source at a random time up to {@code delayMaxS} later:
     * late duplicates of requests and replies thousands of calls old, and (with a short delay)
     * duplicates within a call. None may be executed again, disturb a call or fail one.
     */
    private void replay(final String name, final int seconds, final double delayMaxS) throws IOException, InterruptedException
    {
        final Snapshot before = pausedSnapshot();
        resume();
        final Map<String, Long> r = python("replay", "--port", Integer.toString(port), "--seconds", Integer.toString(seconds),
            "--delay-max", Double.toString(delayMaxS));
        Thread.sleep(500);
        final Map<String, Long> now = serverNow();
        final long counted = delta(before, now, "stale", "duplicates", "unknown_id", "wrong_address", "duplicate_connects", "retries_sent");
        judge(name, before, r.getOrDefault("sent", 0L), counted, null, r.getOrDefault("sent", 0L) > 1000,
            "data_datagrams_captured=" + r.getOrDefault("data", 0L) + " stale_at_server=" + delta(before, now, "stale"));
    }

    /**
     * CONNECTs forged with the source address and port of every live client connection, then a
     * blind sweep of 20,000 forged source ports: none may close or disturb a live connection
     * (they cannot echo a cookie sent to the real client), none may cost the server state.
     */
    private void spoofedConnects() throws IOException, InterruptedException
    {
        final Snapshot before = pausedSnapshot();
        resume();
        final Map<String, Long> r = python("spoof-connect", "--port", Integer.toString(port), "--sweep", "20000");
        Thread.sleep(500);
        final Map<String, Long> now = serverNow();
        final long replaced = delta(before, now, "connections_replaced");
        final long counted = delta(before, now, "retries_sent");
        judge("spoofed-connect", before, r.getOrDefault("sent", 0L), counted, null, replaced == 0 && r.getOrDefault("aimed", 0L) > 0,
            "aimed_at_live_connections=" + r.getOrDefault("aimed", 0L) + " connections_replaced=" + replaced +
                " connections_accepted=" + delta(before, now, "connections_accepted"));
    }

    /**
     * 20,000 first CONNECTs from forged random sources while 1,100 set-ups complete from real
     * sockets (an address of their own, 127.0.0.2) and stay open; meanwhile a new IIOP client and
     * a new Lightwire client must both be served, and the server's threads and direct memory stay
     * within the allowances.
     */
    private void connectFlood() throws Exception
    {
        final Snapshot before = pausedSnapshot();
        resume();
        final Thread flood = new Thread(() ->
        {
            try
            {
                python("flood", "--port", Integer.toString(port), "--count", "20000");
            }
            catch (final Exception e)
            {
                System.out.println("# flood attacker failed: " + e);
            }
        }, "flood");
        flood.start();
        final List<UdpClientLink> open = new ArrayList<>();
        long refused = 0;
        final UdpLinkConfig config = UdpLinkConfig.builder().bindAddress(new InetSocketAddress("127.0.0.2", 0))
            .socketReceiveBufferBytes(4096).socketSendBufferBytes(4096).build();
        try
        {
            for (int i = 0; i < FLOOD_SETUPS; i++)
            {
                try
                {
                    open.add(UdpClientLink.connect(new InetSocketAddress("127.0.0.1", port), config));
                }
                catch (final IOException e)
                {
                    refused++;
                }
            }
            final long newOk = newClients(200);
            flood.join();
            final Map<String, Long> peak = serverNow();
            final long threadsAdded = peak.getOrDefault("threads", 0L) - before.s("threads");
            final long directAdded = peak.getOrDefault("direct_used", 0L) - before.s("direct_used");
            final boolean ok = open.size() == FLOOD_SETUPS && newOk == 400 && threadsAdded <= THREAD_ALLOWANCE && directAdded <= FLOOD_DIRECT_ALLOWANCE_BYTES;
            final long counted = delta(before, peak, "retries_sent", "connections_refused");
            judge("connect-flood", before, 20_000 + FLOOD_SETUPS, counted, peak, ok, "completed_setups=" + open.size() + " refused=" + refused +
                " new_clients_ok=" + newOk + "/400 threads_added=" + threadsAdded + " direct_added_kb=" + directAdded / 1024 +
                " open_connections=" + peak.getOrDefault("connections", 0L));
        }
        finally
        {
            for (final UdpClientLink link : open)
            {
                link.close();
            }
        }
    }

    /** A new IIOP client and a new Lightwire client, {@code calls} echoes each; @return the echoes answered right. */
    private long newClients(final int calls)
    {
        long ok = 0;
        for (final boolean lightwire : new boolean[] {false, true})
        {
            final ORB orb = Orbs.init(lightwire ? Orbs.lightwire() : Map.of());
            try
            {
                final echo e = echoHelper.narrow(orb.string_to_object((lightwire ? "corbaloc:lw:" : "corbaloc:iiop:") + "127.0.0.1:" + port + "/echo"));
                for (int i = 0; i < calls; i++)
                {
                    final String s = (lightwire ? "new lw " : "new iiop ") + i;
                    if (s.equals(e.echoString(s)))
                    {
                        ok++;
                        newClientCalls++;
                    }
                }
            }
            catch (final RuntimeException e)
            {
                System.out.println("# new " + (lightwire ? "Lightwire" : "IIOP") + " client failed: " + e);
            }
            finally
            {
                orb.shutdown(true);
                orb.destroy();
            }
        }
        return ok;
    }

    /**
     * 200 connections each send the first 20 packets (1.3 MB) of a request and fall silent: the
     * memory they hold must stay within the budget, the over-budget ones be refused at once, and
     * everything be given back at the request timeout; the live client is not disturbed.
     */
    private void halfSentRequests() throws Exception
    {
        final Snapshot before = pausedSnapshot();
        resume();
        final UdpLinkConfig config = UdpLinkConfig.builder().bindAddress(new InetSocketAddress("127.0.0.4", 0)).maxPacketBytes(65_499).build();
        final List<UdpClientLink> open = new ArrayList<>();
        long sent = 0;
        try
        {
            final ByteBuffer header = ByteBuffer.allocateDirect(HeaderFlyweight.HEADER_LENGTH);
            for (int i = 0; i < 200; i++)
            {
                final UdpClientLink link = UdpClientLink.connect(new InetSocketAddress("127.0.0.1", port), config);
                open.add(link);
                final ByteBuffer payload = ByteBuffer.allocateDirect(link.maxPacketBytes() - HeaderFlyweight.HEADER_LENGTH);
                for (int p = 0; p < 20; p++)
                {
                    new HeaderFlyweight().wrap(header, 0).set(MessageType.PARTIAL, true, link.maxPacketBytes(), 1, p, true);
                    header.clear();
                    payload.clear();
                    link.send(header, payload);
                    sent++;
                }
            }
            final Map<String, Long> peak = serverNow();
            // The request timeout, the server's one-second timer, and a margin.
            Thread.sleep(REQUEST_TIMEOUT_MS + 3_000);
            final Map<String, Long> after = serverNow();
            final long refusals = delta(before, after, "request_memory_refusals");
            final long peakBytes = after.getOrDefault("request_memory_peak", 0L);
            final boolean ok = peakBytes <= BUDGET_BYTES && refusals > 0 && after.getOrDefault("request_memory_used", -1L) == 0;
            judge("half-sent-requests", before, sent, refusals + delta(before, after, "zombies_removed"), peak, ok,
                "budget_mb=" + BUDGET_BYTES / (1024 * 1024) + " peak_mb=" + peakBytes / (1024 * 1024) + " refused=" + refusals +
                    " given_up=" + delta(before, after, "zombies_removed") + " used_after_timeout=" + after.getOrDefault("request_memory_used", -1L));
        }
        finally
        {
            for (final UdpClientLink link : open)
            {
                link.close();
            }
        }
    }

    /** Random, truncated, unknown-id, cut-CONNECT, forged-cookie and oversize datagrams: all dropped and counted. */
    private void garbage() throws IOException, InterruptedException
    {
        final Snapshot before = pausedSnapshot();
        resume();
        final Map<String, Long> r = python("garbage", "--port", Integer.toString(port), "--count", "7000");
        Thread.sleep(500);
        final Map<String, Long> now = serverNow();
        final long counted = delta(before, now, "malformed", "unknown_id", "bad_cookies");
        judge("garbage", before, r.getOrDefault("sent", 0L), counted, null, counted == r.getOrDefault("sent", 0L),
            "malformed=" + delta(before, now, "malformed") + " unknown_id=" + delta(before, now, "unknown_id") +
                " bad_cookies=" + delta(before, now, "bad_cookies"));
    }
}
