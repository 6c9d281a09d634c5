#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Rewrites atmtcp_c_pre_send() in drivers/atm/atmtcp.c (Linux 6.1.150+ and 6.12).

The stable fix "atm: atmtcp: Prevent arbitrary write in atmtcp_recv_control()" makes
atmtcp_c_pre_send() refuse every message with the control magic on the control VCC, which is
exactly how the atmtcp daemon answers the kernel's OPEN and CLOSE requests: opening any VC on an
atmtcp interface then waits forever. The replacement keeps the fix's point (a control message
may not make the kernel write through an arbitrary pointer) by accepting a control message only
when it is complete and its vcc pointer names a live VCC on the interface that this control
socket drives.

Usage: patch-atmtcp.py <atmtcp.c>   (edits the file in place; fails if the function is not found)
"""
import re
import sys

REPLACEMENT = r'''static int atmtcp_c_pre_send(struct atm_vcc *vcc, struct sk_buff *skb)
{
	const struct atmtcp_control *msg;
	struct atm_vcc *target;
	struct sock *s;
	int i, live = 0;

	if (skb->len < sizeof(struct atmtcp_hdr))
		return -EINVAL;
	if (((struct atmtcp_hdr *)skb->data)->length != ATMTCP_HDR_MAGIC)
		return 0;
	/* A control reply: it must name a live VCC of the interface this socket drives. */
	if (skb->len < sizeof(struct atmtcp_control))
		return -EINVAL;
	msg = (const struct atmtcp_control *)skb->data;
	target = *(struct atm_vcc **)&msg->vcc;
	read_lock(&vcc_sklist_lock);
	for (i = 0; i < VCC_HTABLE_SIZE && !live; i++) {
		sk_for_each(s, &vcc_hash[i]) {
			if (atm_sk(s) == target && target->dev == vcc->dev_data) {
				live = 1;
				break;
			}
		}
	}
	read_unlock(&vcc_sklist_lock);
	return live ? 0 : -EINVAL;
}
'''


def main():
    path = sys.argv[1]
    with open(path) as f:
        text = f.read()
    pattern = re.compile(r'static int atmtcp_c_pre_send\(struct atm_vcc \*vcc, struct sk_buff \*skb\)\n\{.*?\n\}\n', re.S)
    if not pattern.search(text):
        if 'pre_send' not in text:
            print('patch-atmtcp: no atmtcp_c_pre_send in ' + path + ': this kernel predates the fix; building it unchanged')
            return
        sys.exit('patch-atmtcp: atmtcp_c_pre_send in ' + path + ' does not have the expected form; update this script')
    text = pattern.sub(lambda m: REPLACEMENT, text, count=1)
    with open(path, 'w') as f:
        f.write(text)
    print('patch-atmtcp: atmtcp_c_pre_send replaced in ' + path)


if __name__ == '__main__':
    main()
