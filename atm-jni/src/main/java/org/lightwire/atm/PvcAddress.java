package org.lightwire.atm;

/**
 * A permanent virtual circuit: interface number, VPI and VCI, written {@code itf.vpi.vci} as in
 * Linux ATM's tools ({@code 0.0.100}).
 *
 * @param itf the ATM interface number (0 to 32767).
 * @param vpi virtual path identifier (0 to 4095; 0 to 255 at a UNI).
 * @param vci virtual channel identifier (32 to 65535; below 32 is reserved for signalling).
 */
public record PvcAddress(int itf, int vpi, int vci)
{
    /** The first VCI not reserved by the ATM Forum ({@code ATM_NOT_RSV_VCI}). */
    public static final int FIRST_USER_VCI = 32;

    /** @throws IllegalArgumentException naming the field out of range. */
    public PvcAddress
    {
        if (itf < 0 || itf > Short.MAX_VALUE)
        {
            throw new IllegalArgumentException("PVC interface " + itf + " is outside 0.." + Short.MAX_VALUE);
        }
        if (vpi < 0 || vpi > 4095)
        {
            throw new IllegalArgumentException("PVC VPI " + vpi + " is outside 0..4095");
        }
        if (vci < FIRST_USER_VCI || vci > 65535)
        {
            throw new IllegalArgumentException("PVC VCI " + vci + " is outside " + FIRST_USER_VCI +
                "..65535 (VCIs below 32 are reserved for signalling and OAM)");
        }
    }

    /**
     * @param text {@code itf.vpi.vci}, e.g. {@code 0.0.100}.
     * @throws IllegalArgumentException saying what is wrong with {@code text}.
     */
    public static PvcAddress parse(final String text)
    {
        final String[] parts = text.trim().split("\\.", -1);
        if (parts.length != 3)
        {
            throw new IllegalArgumentException("PVC '" + text + "' is not itf.vpi.vci (for example 0.0.100)");
        }
        try
        {
            return new PvcAddress(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2]));
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalArgumentException("PVC '" + text + "' is not itf.vpi.vci with decimal numbers (for example 0.0.100)", e);
        }
    }

    @Override
    public String toString()
    {
        return itf + "." + vpi + "." + vci;
    }
}
