package org.lightwire.transport.channel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The simulation's workload, smaller, between two processes over real UDP sockets on loopback:
 * a server JVM and this JVM's client, four threads calling at once (so four connections).
 */
class UdpTwoProcessTest
{
    static final int CALLS = 4_000;
    static final int THREADS = 4;

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void mixedWorkloadExecutesExactlyOnceWithIdenticalReplies() throws Exception
    {
        final Process server = new ProcessBuilder(
            ProcessHandle.current().info().command().orElse("java"), "-Xmx512m",
            "-cp", System.getProperty("java.class.path"), WorkloadServer.class.getName(), String.valueOf(CALLS))
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        final ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try (UdpClient client = UdpClient.withDefaults())
        {
            final BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
            final String ready = out.readLine();
            assertTrue(ready != null && ready.startsWith("READY "), "server said: " + ready);
            final InetSocketAddress address = new InetSocketAddress("127.0.0.1", Integer.parseInt(ready.substring(6)));
            final AtomicInteger next = new AtomicInteger();
            final AtomicInteger repliesVerified = new AtomicInteger();
            final List<Future<Object>> results = threads.invokeAll(java.util.Collections.nCopies(THREADS, () ->
            {
                int index;
                while ((index = next.getAndIncrement()) < CALLS)
                {
                    final ByteBuffer request = ByteBuffer.wrap(Workload.request(index));
                    if (Workload.oneWay(index))
                    {
                        client.send(address, request);
                        continue;
                    }
                    final byte[] reply = client.call(address, request, TimeUnit.SECONDS.toNanos(60), r ->
                    {
                        final byte[] b = new byte[r.remaining()];
                        r.get(b);
                        return b;
                    });
                    assertArrayEquals(Workload.reply(index), reply, "reply to call " + index);
                    repliesVerified.incrementAndGet();
                }
                return null;
            }));
            for (final Future<Object> f : results)
            {
                f.get();
            }
            final ByteBuffer report = client.call(address, ByteBuffer.allocate(4).putInt(0, WorkloadServer.REPORT), TimeUnit.SECONDS.toNanos(60),
                r -> ByteBuffer.allocate(r.remaining()).put(r).flip());
            assertEquals(0, report.getLong(), "requests that arrived corrupt");
            int exactlyOnce = 0;
            for (int i = 0; i < CALLS; i++)
            {
                final int executions = report.get();
                if (Workload.oneWay(i))
                {
                    assertTrue(executions <= 1, "one-way call " + i + " executed " + executions + " times");
                }
                else
                {
                    exactlyOnce++;
                    assertEquals(1, executions, "exactly-once call " + i);
                }
            }
            assertEquals(exactlyOnce, repliesVerified.get());
            assertTrue(client.pool(address).openConnections() <= THREADS + 1, "one connection per concurrent call");
        }
        finally
        {
            threads.shutdownNow();
            server.getOutputStream().close();
            if (!server.waitFor(10, TimeUnit.SECONDS))
            {
                server.destroyForcibly();
            }
        }
    }
}
