package org.lightwire.bench;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.lightwire.romiop.consolidation.ConsolidationPolicy;
import org.lightwire.romiop.consolidation.Decision;
import org.lightwire.romiop.consolidation.ReplyConsolidator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A client's consolidation of one two-way group call, without I/O: three members' replies of a
 * null call (a 32-byte GIOP Reply) taken by a fresh {@link ReplyConsolidator}, atomic (all three,
 * all the same), as the client's reader thread does it before it hands the reply to the ORB.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ConsolidationBenchmark
{
    private static final int[] MEMBERS = {1, 2, 3};

    private final ConsolidationPolicy atomic = ConsolidationPolicy.atomic();
    private final ByteBuffer reply = ByteBuffer.allocateDirect(32);
    private long nowNs;

    @Benchmark
    public byte[] atomicOfThree()
    {
        final ReplyConsolidator c = new ReplyConsolidator(atomic, MEMBERS, ++nowNs);
        c.onReply(1, reply, 0, 32);
        c.onReply(2, reply, 0, 32);
        final Decision d = c.onReply(3, reply, 0, 32);
        if (d == null || !d.succeeded())
        {
            throw new IllegalStateException("three equal replies must consolidate: " + d);
        }
        return d.reply();
    }
}
