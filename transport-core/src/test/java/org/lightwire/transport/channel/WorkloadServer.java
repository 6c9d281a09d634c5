package org.lightwire.transport.channel;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server process of {@link UdpTwoProcessTest}: verifies every request byte for byte, counts
 * executions per call index, answers exactly-once calls with a reply derived from the index, and
 * reports its counts when asked (index -1). Prints {@code READY <port>}; exits when stdin closes.
 */
public final class WorkloadServer
{
    static final int REPORT = -1;

    private WorkloadServer()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int calls = Integer.parseInt(args[0]);
        final AtomicIntegerArray executions = new AtomicIntegerArray(calls);
        final AtomicLong corrupt = new AtomicLong();
        final RequestHandler handler = call ->
        {
            final ByteBuffer request = call.request();
            final int index = request.getInt(request.position());
            if (index == REPORT)
            {
                final ByteBuffer report = ByteBuffer.allocate(8 + calls);
                report.putLong(corrupt.get());
                for (int i = 0; i < calls; i++)
                {
                    report.put((byte)Math.min(127, executions.get(i)));
                }
                call.reply(report.flip());
                return;
            }
            if (index < 0 || index >= calls || !Workload.requestMatches(index, request))
            {
                corrupt.incrementAndGet();
            }
            else
            {
                executions.incrementAndGet(index);
            }
            if (call.exactlyOnce())
            {
                call.reply(ByteBuffer.wrap(Workload.reply(index)));
            }
        };
        try (UdpServer server = UdpServer.start(new InetSocketAddress("127.0.0.1", 0), handler))
        {
            System.out.println("READY " + server.localAddress().getPort());
            System.out.flush();
            while (System.in.read() >= 0)
            {
                // Serve until the test closes our standard input.
            }
        }
    }
}
