/*
 * A laptop's battery and AC adapter for the desktop guest (the low-battery
 * and sth-battery scenarios of tests/vm/desktop/run.py), as the firmware of
 * a laptop describes them: an ACPI battery (PNP0C0A: _STA, _BIF, _BST) and
 * an AC adapter (ACPI0003: _PSR), so that the guest's own drivers (battery,
 * ac) make /sys/class/power_supply/BAT0 and ADP0 and UPower and systemd see
 * what they see on a laptop. QEMU has no battery: this table is given to it
 * with -acpitable, and what a laptop's embedded controller would hold is in
 * the scratch register of QEMU's pc-testdev (-device pc-testdev, I/O ports
 * 0xe0-0xe3, readable and writable), which the harness sets from QEMU's
 * monitor (its "o" command): the test drains the battery on purpose.
 *
 *   port 0xe0: the charge used, percent of the last full charge (0-100):
 *              the battery holds 100 minus it; 0xff: the battery does not
 *              tell its charge (_BST's remaining capacity "unknown",
 *              0xFFFFFFFF, as firmware reports it: the kernel's capacity
 *              file then fails to read with ENODEV)
 *   port 0xe1: the AC adapter unplugged when not 0
 *
 * The register is 0 at power-on: a full battery and the adapter plugged
 * in, the way a laptop usually starts, so that nothing acts on the battery
 * before the test drains it ("o /b 0xe1 1", then "o /b 0xe0 97": 3 %).
 *
 * No notification is sent when they change (no embedded controller raises
 * an event): the kernel reads _BST when asked (its cache lasts 1 s), and
 * UPower polls the battery as it does on laptops whose controller is quiet.
 * Built with iasl (acpica-tools).
 */
DefinitionBlock ("", "SSDT", 2, "DMOUSE", "BATTERY", 0x00000001)
{
    Scope (\_SB)
    {
        OperationRegion (DMEC, SystemIO, 0xE0, 0x02)
        Field (DMEC, ByteAcc, NoLock, Preserve)
        {
            USED, 8,
            UNPL, 8
        }

        Device (ADP0)
        {
            Name (_HID, "ACPI0003")
            Name (_PCL, Package (0x01) { \_SB })
            Method (_STA, 0, NotSerialized)
            {
                Return (0x0F)
            }
            Method (_PSR, 0, NotSerialized)
            {
                If (UNPL)
                {
                    Return (Zero)
                }
                Return (One)
            }
        }

        Device (BAT0)
        {
            Name (_HID, EisaId ("PNP0C0A"))
            Name (_UID, One)
            Name (_PCL, Package (0x01) { \_SB })
            Method (_STA, 0, NotSerialized)
            {
                Return (0x1F)
            }
            /* 50 Wh (units of mWh), rechargeable, 11.1 V, Li-ion. */
            Method (_BIF, 0, NotSerialized)
            {
                Return (Package (0x0D)
                {
                    Zero,
                    50000,
                    50000,
                    One,
                    11100,
                    5000,
                    1000,
                    500,
                    500,
                    "DMO-BAT",
                    "0001",
                    "LION",
                    "dormouse"
                })
            }
            /* State: 1 discharging (unplugged), 2 charging (plugged in, not
             * full), 0 (plugged in and full); 10 W either way; remaining
             * capacity 100 - USED % of 50 Wh, or unknown. */
            Name (BSTP, Package (0x04) { Zero, 10000, Zero, 11100 })
            Method (_BST, 0, Serialized)
            {
                Local0 = Zero
                If (USED < 100)
                {
                    Local0 = 100 - USED
                }
                Local1 = One
                If (!UNPL)
                {
                    Local1 = Zero
                    If (Local0 < 100)
                    {
                        Local1 = 2
                    }
                }
                BSTP [Zero] = Local1
                If (USED == 0xFF)
                {
                    BSTP [2] = 0xFFFFFFFF
                }
                Else
                {
                    BSTP [2] = Local0 * 500
                }
                Return (BSTP)
            }
        }
    }
}
