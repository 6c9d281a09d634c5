package org.lightwire.atm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.lightwire.atm.AtmErrors.Operation;

class AtmErrorsTest
{
    static final AtmQos UBR = new AtmQos(TrafficClass.UBR, 0, 8192);
    static final AtmQos CBR = new AtmQos(TrafficClass.CBR, 10_000, 8192);

    @Test
    void eafnosupportMeansTheKernelHasNoAtm()
    {
        final AtmException e = AtmErrors.exception(Operation.SOCKET, -Errno.EAFNOSUPPORT, "pvc 0.0.100");
        assertInstanceOf(AtmUnsupportedException.class, e);
        assertEquals(NoAtmKernelTest.NO_ATM, e.getMessage());
        assertEquals(Errno.EAFNOSUPPORT, e.errno());
    }

    @Test
    void emsgsizeNamesTheSduAndTheQosMaximum()
    {
        final AtmException e = AtmErrors.exception(Operation.SEND, -Errno.EMSGSIZE, "pvc 0.0.100", UBR, UBR, 9000);
        assertInstanceOf(SduTooLargeException.class, e);
        assertEquals("cannot send an AAL5 SDU on ATM circuit pvc 0.0.100 (EMSGSIZE): the SDU of 9000 bytes is larger than" +
            " the QoS maximum SDU of 8192 bytes (tx ubr,pcr=line,max_sdu=8192): raise qos.max_sdu (AAL5 allows up to" +
            " 65535) or lower maxPacketBytes", e.getMessage());
    }

    @Test
    void epipeEnotconnAndEconnresetMeanTheCircuitWasReleased()
    {
        for (final int errno : new int[] {Errno.EPIPE, Errno.ENOTCONN, Errno.ECONNRESET})
        {
            final AtmException e = AtmErrors.exception(Operation.RECEIVE, -errno, "pvc 1.0.100");
            assertInstanceOf(CircuitReleasedException.class, e, Errno.name(errno));
            assertTrue(e.getMessage().startsWith("cannot receive an AAL5 SDU on ATM circuit pvc 1.0.100 (" + Errno.name(errno) +
                "): the circuit was released"), e.getMessage());
            assertTrue(e.getMessage().endsWith("open a new circuit"), e.getMessage());
        }
    }

    @Test
    void einvalOnQosNamesTheParameter()
    {
        final AtmException mixed = AtmErrors.exception(Operation.SET_QOS, -Errno.EINVAL, "pvc 0.0.100", UBR, CBR, -1);
        assertEquals("class", ((QosRejectedException)mixed).parameter());

        final AtmQos cbrNoPcr = new AtmQos(TrafficClass.UBR, 0, 8192);
        assertEquals("unknown", ((QosRejectedException)AtmErrors.exception(Operation.SET_QOS, -Errno.EINVAL, "pvc 0.0.100",
            cbrNoPcr, cbrNoPcr, -1)).parameter());

        final QosRejectedException e = (QosRejectedException)AtmErrors.exception(Operation.CONNECT, -Errno.EINVAL, "pvc 0.0.100", CBR, CBR, -1);
        assertEquals("unknown", e.parameter());
        assertEquals("cannot connect on ATM circuit pvc 0.0.100 (EINVAL): the VPI/VCI is outside the interface's range" +
            " or the kernel refused the QoS tx cbr,pcr=10000,max_sdu=8192, rx cbr,pcr=10000,max_sdu=8192; parameter at" +
            " fault: unknown (the values pass the kernel's own checks, so the interface refused them: lower the PCR or" +
            " the max SDU)", e.getMessage());
    }

    @Test
    void einvalElsewhereIsAPlainAtmException()
    {
        final AtmException e = AtmErrors.exception(Operation.SEND, -Errno.EINVAL, "pvc 0.0.100");
        assertSame(AtmException.class, e.getClass());
    }

    @Test
    void commonSetUpFailuresSayWhatToDo()
    {
        assertTrue(AtmErrors.exception(Operation.CONNECT, -Errno.ENODEV, "pvc 7.0.100").getMessage()
            .endsWith("no such ATM interface: list them in /proc/net/atm/devices and use its number as the first part of itf.vpi.vci"));
        assertTrue(AtmErrors.exception(Operation.CONNECT, -Errno.EADDRINUSE, "pvc 0.0.100").getMessage()
            .contains("already open on the interface"));
        assertTrue(AtmErrors.exception(Operation.CONNECT, -Errno.EUNATCH, "pvc 0.0.100").getMessage()
            .contains("for atmtcp: its daemon exited"));
        assertTrue(AtmErrors.exception(Operation.CONNECT, -Errno.EDESTADDRREQ, "svc x").getMessage()
            .contains("not an ATM address"));
        final AtmException other = AtmErrors.exception(Operation.SEND, -Errno.ENOBUFS, "pvc 0.0.100");
        assertTrue(other.getMessage().startsWith("cannot send an AAL5 SDU on ATM circuit pvc 0.0.100 (ENOBUFS): "), other.getMessage());
    }
}
