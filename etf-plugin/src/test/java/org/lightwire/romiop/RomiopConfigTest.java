package org.lightwire.romiop;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Properties;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.omg.CORBA.ORB;

/**
 * A bad ROMIOP setting fails when JacORB loads the ROMIOP factories (a replica's listener at ORB
 * start, a client's first group reference), with a message naming the property and what is allowed.
 */
class RomiopConfigTest
{
    private static String initError(final String key, final String value)
    {
        final Properties p = new Properties();
        p.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
        p.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
        p.setProperty("jacorb.transport.factories", "org.jacorb.orb.iiop.IIOPFactories," + RomiopFactories.class.getName());
        p.setProperty(key, value);
        final ORB orb = ORB.init(new String[0], p);
        final RuntimeException e;
        try
        {
            e = assertThrows(RuntimeException.class, () -> RomiopFactories.of(orb));
        }
        finally
        {
            orb.destroy();
        }
        final StringBuilder text = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause())
        {
            text.append(t.getMessage()).append(" / ");
        }
        return text.toString();
    }

    @Test
    void anAckDelayNotBelowTheRetransmissionTimeoutIsRefused()
    {
        final String text = initError("jacorb.lightwire.romiop.request_ack_delay_ms", "20");
        assertTrue(text.contains("jacorb.lightwire.romiop.request_ack_delay_ms = 20 must be below jacorb.lightwire.romiop.retransmit_ms = 20"),
            text);
    }

    @Test
    void orderAndReplyAckDelaysNotBelowTheRetransmissionTimeoutAndAnEmptyOrderWindowAreRefused()
    {
        final String delay = initError("jacorb.lightwire.romiop.order_ack_delay_ms", "25");
        assertTrue(delay.contains("jacorb.lightwire.romiop.order_ack_delay_ms = 25 must be below jacorb.lightwire.romiop.retransmit_ms = 20"),
            delay);
        final String replies = initError("jacorb.lightwire.romiop.reply_ack_delay_ms", "20");
        assertTrue(replies.contains("jacorb.lightwire.romiop.reply_ack_delay_ms = 20 must be below jacorb.lightwire.romiop.retransmit_ms = 20"),
            replies);
        final String window = initError("jacorb.lightwire.romiop.order_window", "0");
        assertTrue(window.contains("jacorb.lightwire.romiop.order_window = 0 is outside the allowed range 1..65536"), window);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {RomiopConfig.MAX_REQUEST_BYTES, RomiopConfig.MAX_REPLY_BYTES, RomiopConfig.MAX_STATE_BYTES})
    void aLargestMessageOutsideItsRangeIsRefused(final String property)
    {
        final String small = initError(property, "100");
        assertTrue(small.contains(property + " = 100 is outside the allowed range 1024..1073741824"), small);
        final String large = initError(property, "2147483647");
        assertTrue(large.contains(property + " = 2147483647 is outside the allowed range 1024..1073741824"), large);
    }

    @Test
    void aReplyWindowOutsideItsRangeIsRefused()
    {
        final String text = initError(RomiopConfig.REPLY_WINDOW_BYTES, "100");
        assertTrue(text.contains("jacorb.lightwire.romiop.reply_window_bytes = 100 is outside the allowed range 512..1073741824"), text);
    }

    @Test
    void anUnknownDriverIsRefusedWithTheAllowedValues()
    {
        final String text = initError("jacorb.lightwire.romiop.driver", "fibers");
        assertTrue(text.contains("jacorb.lightwire.romiop.driver = fibers is not a known driver; the allowed values are polling, event_loop and thread"),
            text);
    }

    @Test
    void aKeepAliveTimeoutBelowTwoPeriodsIsRefused()
    {
        final String text = initError("jacorb.lightwire.romiop.keepalive_timeout_ms", "300");
        assertTrue(text.contains("jacorb.lightwire.romiop.keepalive_timeout_ms = 300 is outside the allowed range 400..3600000"), text);
    }

    @Test
    void aFoundingWaitBelowTheKeepAliveTimeoutIsRefused()
    {
        final String text = initError("jacorb.lightwire.romiop.founding_wait_ms", "1999");
        assertTrue(text.contains("jacorb.lightwire.romiop.founding_wait_ms = 1999 is outside the allowed range 2000..3600000"), text);
    }
}
