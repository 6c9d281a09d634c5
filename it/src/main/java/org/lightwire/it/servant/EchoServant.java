package org.lightwire.it.servant;

import java.util.concurrent.atomic.AtomicLong;

import org.lightwire.it.idl.lwtest.echoPOA;

/** Returns what it is sent, and counts the calls it completed. */
public final class EchoServant extends echoPOA
{
    private final AtomicLong calls = new AtomicLong();

    @Override
    public String echoString(final String mesg)
    {
        calls.incrementAndGet();
        return mesg;
    }

    @Override
    public String slowEcho(final String mesg, final int sleepMs)
    {
        try
        {
            Thread.sleep(Math.max(0, sleepMs));
        }
        catch (final InterruptedException e)
        {
            // The ORB is shutting down: reply at once rather than hold the request.
            Thread.currentThread().interrupt();
        }
        calls.incrementAndGet();
        return mesg;
    }

    @Override
    public int charCount(final String mesg, final int sleepMs)
    {
        slowEcho("", sleepMs);
        return mesg.length();
    }

    @Override
    public byte[] utf8Of(final String mesg)
    {
        calls.incrementAndGet();
        return mesg.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public char bounceWchar(final char c)
    {
        return c;
    }

    @Override
    public long calls_received()
    {
        return calls.get();
    }
}
