package org.lightwire.it.partition;

import java.util.Map;

/** The clients' reply consolidation in a run (docs/romiop.md, "Reply consolidation"). */
public enum Consolidation
{
    /** A fixed quorum of 3 of the 5 members, the agreeing replies more than half of those received. */
    MAJORITY("majority", Map.of("jacorb.lightwire.romiop.consolidation.mode", "quorum", "jacorb.lightwire.romiop.consolidation.quorum", "3",
        "jacorb.lightwire.romiop.consolidation.consistency", "majority")),
    /** Every member of the client's view, all the same. */
    ATOMIC("atomic", Map.of("jacorb.lightwire.romiop.consolidation.mode", "atomic"));

    private final String label;
    private final Map<String, String> properties;

    Consolidation(final String label, final Map<String, String> properties)
    {
        this.label = label;
        this.properties = properties;
    }

    public String label()
    {
        return label;
    }

    /** @return the client ORB properties that choose it. */
    public Map<String, String> properties()
    {
        return properties;
    }

    /** @return the consolidation labelled {@code label}. */
    public static Consolidation of(final String label)
    {
        for (final Consolidation c : values())
        {
            if (c.label.equals(label))
            {
                return c;
            }
        }
        throw new IllegalArgumentException("no consolidation '" + label + "': majority or atomic");
    }
}
