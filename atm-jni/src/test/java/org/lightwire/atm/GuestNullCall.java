package org.lightwire.atm;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.lightwire.transport.channel.ClientConnection;
import org.lightwire.transport.channel.ConnectionFailedException;
import org.lightwire.transport.channel.LinkServerDriver;
import org.lightwire.transport.channel.RequestHandler;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.link.circuit.CircuitClientLink;
import org.lightwire.transport.link.circuit.CircuitServerLink;
import org.lightwire.transport.protocol.CloseCause;

/**
 * The goal of the kernel test (issue 5, part 3b), run by src/test/qemu/guest-tests.sh in the
 * qemu guest, not by surefire: the transport engine over two real AAL5 circuits joined by
 * atmtcp, a null call timed (emulated, so a sanity figure only), calls with large arguments,
 * and the Java error mapping against the real kernel.
 *
 * <p>Usage: {@code GuestNullCall <client pvc> <server pvc> <null calls>},
 * {@code GuestNullCall released <pvc> <pid of the atmtcp daemon of its interface>} (kills it), or
 * {@code GuestNullCall restart <client pvc> <server pvc>} (a client, then a server, closed and
 * opened again on their circuits, as a process restarted on either end); exit status 0 when every
 * check passed. Prints {@code PASS}/{@code FAIL} lines and {@code GUEST-RTT}.
 */
public final class GuestNullCall
{
    static final long MS = 1_000_000L;
    static final List<String> FAILURES = new ArrayList<>();

    private GuestNullCall()
    {
    }

    static void check(final boolean ok, final String what)
    {
        System.out.println((ok ? "PASS " : "FAIL ") + what);
        if (!ok)
        {
            FAILURES.add(what);
        }
    }

    public static void main(final String[] args) throws Exception
    {
        if (args.length == 3 && "restart".equals(args[0]))
        {
            restarts(args[1], args[2]);
            System.out.println(FAILURES.isEmpty() ? "PASS: restarts over AAL5" : "FAIL: " + FAILURES);
            System.exit(FAILURES.isEmpty() ? 0 : 1);
        }
        if (args.length == 3 && "released".equals(args[0]))
        {
            released(args[1], Long.parseLong(args[2]));
            System.out.println(FAILURES.isEmpty() ? "PASS: released circuit in Java" : "FAIL: " + FAILURES);
            System.exit(FAILURES.isEmpty() ? 0 : 1);
        }
        final String clientPvc = args[0];
        final String serverPvc = args[1];
        final int calls = Integer.parseInt(args[2]);
        check(AtmLibrary.isAvailable(), "shim loaded from the jar path (" + AtmLibrary.unavailableReason() + ")");

        final EngineConfig config = EngineConfig.builder().maxPacketBytes(8192).retransmitInitialNs(500 * MS)
            .peerTimeoutNs(60_000 * MS).build();
        final Aal5Link serverLink = Aal5Link.open(Aal5Config.pvc(serverPvc));
        final Aal5Link clientLink = Aal5Link.open(Aal5Config.pvc(clientPvc));
        System.out.println("opened " + clientLink + " and " + serverLink);
        try (LinkServerDriver server = new LinkServerDriver(new CircuitServerLink(serverLink, "pvc " + serverPvc), config, call ->
            {
                final ByteBuffer copy = ByteBuffer.allocate(call.request().remaining()).put(call.request()).flip();
                call.reply(copy);
            }, null, 1 << 20, "aal5").start();
             ClientConnection client = new ClientConnection(CircuitClientLink.connect(clientLink, "pvc " + clientPvc, 10_000 * MS, 200 * MS),
                 config, "aal5 " + clientPvc, 1 << 20))
        {
            final ByteBuffer empty = ByteBuffer.allocate(0);
            for (int i = 0; i < Math.min(200, calls); i++)
            {
                client.call(empty.duplicate(), 30_000 * MS);
            }
            final long startNs = System.nanoTime();
            for (int i = 0; i < calls; i++)
            {
                final ByteBuffer reply = client.call(empty.duplicate(), 30_000 * MS);
                if (reply.remaining() != 0)
                {
                    check(false, "null call " + i + " returned " + reply.remaining() + " bytes");
                    break;
                }
            }
            final long elapsedNs = System.nanoTime() - startNs;
            System.out.printf("GUEST-RTT transport null call over AAL5 (atmtcp, qemu TCG): %.1f us average over %d calls%n",
                elapsedNs / 1000.0 / calls, calls);

            boolean same = true;
            for (int size : new int[] {1, 8167, 8168, 8169, 20_000, 65_536, 300_000})
            {
                final byte[] request = new byte[size];
                for (int i = 0; i < size; i++)
                {
                    request[i] = (byte)(i * 7 + size);
                }
                final ByteBuffer reply = client.call(ByteBuffer.wrap(request), 60_000 * MS);
                final byte[] got = new byte[reply.remaining()];
                reply.get(got);
                same &= Arrays.equals(request, got);
            }
            check(same, "echo of 1 B to 300 KB requests (fragmented into 8 KiB SDUs: an 8-byte id, a 16-byte header, 8,168 payload bytes) byte for byte");
            // Not asserted: under TCG a round trip (~0.75 ms) is close to the minimum retransmission
            // timeout (1 ms), so timer-driven retransmissions come and go with the host's load.
            System.out.println("client link: " + clientLink + "; retransmissions " + client.counters().retransmissions() +
                " (timer-driven, load-dependent under emulation), SDUs refused " + (clientLink.sendsDropped() + serverLink.sendsDropped()));
            check(server.failure() == null, "server driver ran without failure (" + server.failure() + ")");
        }

        errorMapping(clientPvc);
        System.out.println(FAILURES.isEmpty() ? "PASS: JVM over AAL5" : "FAIL: " + FAILURES);
        System.exit(FAILURES.isEmpty() ? 0 : 1);
    }

    /**
     * Opens {@code pvc}, kills the atmtcp daemon driving its interface ({@code daemonPid}), and
     * checks that send and a waiting receive both throw {@link CircuitReleasedException}.
     */
    static void released(final String pvc, final long daemonPid) throws Exception
    {
        try (Aal5Link link = Aal5Link.open(Aal5Config.pvc(pvc)))
        {
            final ProcessHandle daemon = ProcessHandle.of(daemonPid).orElseThrow(() -> new IllegalStateException("no process " + daemonPid));
            daemon.destroyForcibly();
            daemon.onExit().get();
            CircuitReleasedException sendFailure = null;
            for (int i = 0; i < 100 && sendFailure == null; i++)
            {
                try
                {
                    link.send(ByteBuffer.allocateDirect(8), null);
                    Thread.sleep(20);
                }
                catch (final CircuitReleasedException e)
                {
                    sendFailure = e;
                }
            }
            check(sendFailure != null && sendFailure.getMessage().contains("the circuit was released"),
                "EPIPE on send: " + (sendFailure == null ? "none within 2 s" : sendFailure.getMessage()));
            try
            {
                link.receive(ByteBuffer.allocateDirect(8192), 10_000 * MS);
                check(false, "a receive on a released circuit should throw");
            }
            catch (final CircuitReleasedException e)
            {
                check(e.errno() == Errno.EPIPE, "EPIPE on receive: " + e.getMessage());
            }
        }
    }

    /**
     * A process restarted on either end of the circuits, with the set-up exchange over them: a
     * restarted client is a new connection that never gets its predecessor's reply, and a
     * restarted server never executes again a call its predecessor executed.
     */
    static void restarts(final String clientPvc, final String serverPvc) throws Exception
    {
        final EngineConfig config = EngineConfig.builder().maxPacketBytes(8192).retransmitInitialNs(500 * MS).peerTimeoutNs(60_000 * MS).build();
        final java.util.Map<String, Integer> executions = new java.util.concurrent.ConcurrentHashMap<>();
        final RequestHandler echo = call ->
        {
            final byte[] bytes = new byte[call.request().remaining()];
            call.request().get(bytes);
            final String text = new String(bytes, java.nio.charset.StandardCharsets.US_ASCII);
            executions.merge(text, 1, Integer::sum);
            if (!text.startsWith("crash"))
            {
                call.reply(ByteBuffer.wrap(bytes));
            }
        };
        LinkServerDriver server = new LinkServerDriver(new CircuitServerLink(Aal5Link.open(Aal5Config.pvc(serverPvc)), "pvc " + serverPvc),
            config, echo, null, 1 << 20, "aal5").start();
        try
        {
            // Client A makes five calls, sends a sixth and dies (its socket closes) before the reply.
            ClientConnection client = connectClient(clientPvc, config);
            for (int i = 1; i <= 5; i++)
            {
                check(("A" + i).equals(call(client, "A" + i)), "client A call " + i);
            }
            client.startCall(ascii("A6"));
            awaitTrue(() -> executions.containsKey("A6"));
            client.close();
            // Client B, on the same circuit: its calls are numbered from 1 again, and A6's reply is not B1's.
            client = connectClient(clientPvc, config);
            boolean allOwn = true;
            for (int i = 1; i <= 5; i++)
            {
                allOwn &= ("B" + i).equals(call(client, "B" + i));
            }
            check(allOwn, "a restarted client is a new connection: B1..B5 each got its own reply");
            check(executions.values().stream().allMatch(n -> n == 1) && executions.size() == 11,
                "every request executed once across both client incarnations: " + executions);

            // The server executes crash7 and dies before replying; a new server opens the circuit.
            client.startCall(ascii("crash7"));
            awaitTrue(() -> executions.containsKey("crash7"));
            server.close();
            server = new LinkServerDriver(new CircuitServerLink(Aal5Link.open(Aal5Config.pvc(serverPvc)), "pvc " + serverPvc), config, echo,
                null, 1 << 20, "aal5").start();
            try
            {
                client.awaitReply(30_000 * MS);
                check(false, "a call the old server executed must not be answered by the new one");
            }
            catch (final ConnectionFailedException e)
            {
                check(e.closeCause() == CloseCause.UNKNOWN && !e.notExecuted(),
                    "the new server rejected the old connection (" + e.closeCause() + "): " + e.getMessage());
            }
            check(executions.get("crash7") == 1, "crash7 executed once: " + executions.get("crash7"));
            client.close();
            client = connectClient(clientPvc, config);
            check("C1".equals(call(client, "C1")), "a new connection is served by the new server");
            client.close();
        }
        finally
        {
            server.close();
        }
    }

    private static ClientConnection connectClient(final String pvc, final EngineConfig config) throws Exception
    {
        return new ClientConnection(CircuitClientLink.connect(Aal5Link.open(Aal5Config.pvc(pvc)), "pvc " + pvc, 10_000 * MS, 200 * MS),
            config, "aal5 " + pvc, 1 << 20);
    }

    private static ByteBuffer ascii(final String s)
    {
        return ByteBuffer.wrap(s.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    private static String call(final ClientConnection c, final String request) throws Exception
    {
        final ByteBuffer reply = c.call(ascii(request), 30_000 * MS);
        final byte[] bytes = new byte[reply.remaining()];
        reply.get(bytes);
        return new String(bytes, java.nio.charset.StandardCharsets.US_ASCII);
    }

    private static void awaitTrue(final java.util.function.BooleanSupplier condition) throws InterruptedException
    {
        final long deadline = System.nanoTime() + 30_000 * MS;
        while (!condition.getAsBoolean() && System.nanoTime() - deadline < 0)
        {
            Thread.sleep(5);
        }
        check(condition.getAsBoolean(), "waited for a condition");
    }

    /** The Java mapping against the real kernel's answers. */
    static void errorMapping(final String pvc) throws Exception
    {
        final PvcAddress address = PvcAddress.parse(pvc);
        try (Aal5Link first = Aal5Link.open(Aal5Config.pvc(pvc)))
        {
            try (Aal5Link second = Aal5Link.open(Aal5Config.pvc(pvc)))
            {
                check(false, "second open of " + pvc + " should fail");
            }
            catch (final AtmException e)
            {
                check(e.errno() == Errno.EADDRINUSE && e.getMessage().contains("already open"), "EADDRINUSE: " + e.getMessage());
            }
        }
        try (Aal5Link small = Aal5Link.open(Aal5Config.builder().pvc(address).qos(new AtmQos(TrafficClass.UBR, 0, 100)).build()))
        {
            small.send(ByteBuffer.allocateDirect(8), ByteBuffer.allocateDirect(100));
            check(false, "a 108-byte SDU on max_sdu 100 should fail");
        }
        catch (final SduTooLargeException e)
        {
            check(e.getMessage().contains("the SDU of 108 bytes is larger than the QoS maximum SDU of 100 bytes"),
                "EMSGSIZE: " + e.getMessage());
        }
        try (Aal5Link cbr = Aal5Link.open(Aal5Config.builder().pvc(address).qos(new AtmQos(TrafficClass.CBR, 400_000, 8192)).build()))
        {
            check(false, "CBR above the OC-3 link rate should fail");
        }
        catch (final QosRejectedException e)
        {
            check(e.parameter().equals("tx.pcr") && e.getMessage().contains("link rate of 353207 cells/s"), "CBR PCR: " + e.getMessage());
        }
        try (Aal5Link cbr = Aal5Link.open(Aal5Config.builder().pvc(address).qos(new AtmQos(TrafficClass.CBR, 100_000, 8192)).build()))
        {
            check(true, "CBR at 100,000 cells/s opens");
        }
        try (Aal5Link none = Aal5Link.open(Aal5Config.pvc("9.0.100")))
        {
            check(false, "interface 9 should not exist");
        }
        catch (final AtmException e)
        {
            check(e.getMessage().contains("no such ATM interface"), "ENODEV: " + e.getMessage());
        }
    }
}
