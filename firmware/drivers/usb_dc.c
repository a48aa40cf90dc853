/* usb_dc.c: placeholder. */
void isr_usbctrl(void);
void isr_usbctrl(void)
{
}
