package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class HostNetworksTest
{
    /** What a namespace left by a killed run leaves in the root namespace: its veth's address and route. */
    private static final String STALE_VETH =
        "1813: lwl30184a    inet 10.200.184.1/24 scope global lwl30184a\\       valid_lft forever preferred_lft forever\n"
            + "10.200.184.0/24 dev lwl30184a proto kernel scope link src 10.200.184.1 \n";

    @Test
    void aSubnetWithAStaleRouteIsPassedOver()
    {
        assertEquals("10.200.185", HostNetworks.freeSubnet("10.200", 183, STALE_VETH));
        assertEquals("10.200.184", HostNetworks.freeSubnet("10.200", 183, ""));
    }

    @Test
    void aRouteAloneTakesTheSubnet()
    {
        assertEquals("10.200.8", HostNetworks.freeSubnet("10.200", 6, "10.200.7.0/24 via 192.0.2.1 dev eth0 \n"));
    }

    @Test
    void longerPrefixesDoNotMatch()
    {
        // 110.200.7.x and 10.200.70.x are not in 10.200.7.0/24.
        assertEquals("10.200.7", HostNetworks.freeSubnet("10.200", 6,
            "5: x    inet 110.200.7.1/24 scope global x\n10.200.70.0/24 dev y scope link \n"));
    }

    @Test
    void aFullRangeIsAClearError()
    {
        final StringBuilder used = new StringBuilder();
        for (int s = 1; s <= 250; s++)
        {
            used.append("10.200.").append(s).append(".0/24 dev z scope link\n");
        }
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> HostNetworks.freeSubnet("10.200", 0, used.toString()));
        assertEquals(true, e.getMessage().startsWith("no free 10.200.x.0/24 subnet on this host"), e.getMessage());
    }
}
