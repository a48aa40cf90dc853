/* capture_print: text and JSON reports of `xipbench capture`. */
#include "capture_print.h"

#include <inttypes.h>
#include <string.h>

#include "../capture/packet.h"

/* Seconds of t after the first record of the capture. */
static double rel_s(const capture_result *c, uint64_t t)
{
	xb_frames_stats st;
	frames_stats(c->fs, &st);
	return (double)(int64_t)(t - st.first_ns) / 1e9;
}

static void frame_summary(const xb_frame *f, char *buf, size_t cap)
{
	xb_packet p;
	packet_parse(&p, f->data, f->captured, f->len);
	packet_summary(&p, buf, cap);
}

static void json_time(FILE *f, const char *key, const capture_result *c, uint64_t t, int known)
{
	if (known)
		fprintf(f, ", \"%s\": %.9f", key, rel_s(c, t));
	else
		fprintf(f, ", \"%s\": null", key);
}

static void json_opt_string(FILE *f, const char *key, const char *s)
{
	fprintf(f, ", \"%s\": ", key);
	if (s && *s)
		xb_json_string(f, s);
	else
		fputs("null", f);
}

static void json_bool(FILE *f, const char *key, int v)
{
	fprintf(f, ", \"%s\": %s", key, v ? "true" : "false");
}

/* The keys every report starts with. */
static void json_head(const capture_result *c, FILE *f)
{
	xb_frames_stats st;
	frames_stats(c->fs, &st);
	fputs("{\"capture\": ", f);
	xb_json_string(f, c->src->name);
	fprintf(f,
		", \"source\": \"%s\", \"link_type\": %u, \"snaplen\": %u, \"records\": %" PRIu64,
		c->src->ops->kind, c->src->linktype, c->src->snaplen, st.records);
	if (st.records)
		fprintf(f, ", \"start_time\": %" PRIu64 ".%09" PRIu64, st.first_ns / 1000000000u,
			st.first_ns % 1000000000u);
	else
		fputs(", \"start_time\": null", f);
	json_opt_string(f, "error", c->error);
	json_opt_string(f, "warning", frames_warning(c->fs));
}

/* Where a device's protocol came from (enum xb_frames_proto_from): in the text, in JSON. */
static const char *proto_from_name(int from, int json)
{
	static const char *const names[][2] = {
		[XB_FRAMES_FROM_NONE] = {"assumed", "none"},
		[XB_FRAMES_FROM_DESCRIPTOR] = {"from its descriptors", "descriptor"},
		[XB_FRAMES_FROM_PAYLOAD] = {"from its transfers", "payload"},
		[XB_FRAMES_FROM_OPTION] = {"as --proto says", "option"},
	};
	if (from < 0 || from > XB_FRAMES_FROM_OPTION)
		from = XB_FRAMES_FROM_NONE;
	return names[from][json];
}

static void text_head(const capture_result *c, FILE *f)
{
	xb_frames_stats st;
	frames_stats(c->fs, &st);
	char lt[64];
	fprintf(f, "capture      %s (%s): %" PRIu64 " records, link type %s\n", c->src->name,
		c->src->ops->kind, st.records,
		capture_linktype_name((int)c->src->linktype, lt, sizeof lt));
	if (c->error)
		fprintf(f, "stopped      %s\n", c->error);
	if (*frames_warning(c->fs))
		fprintf(f, "warning      %s\n", frames_warning(c->fs));
	for (size_t i = 0; i < frames_device_count(c->fs); i++) {
		const xb_frames_device *d = frames_device(c->fs, i);
		fprintf(f, "device       bus %u device %u: ", d->bus, d->device);
		if (d->proto == XB_FRAMES_PROTO_AUTO || d->proto == XB_FRAMES_PROTO_NONE)
			fputs(d->proto == XB_FRAMES_PROTO_NONE ? "no network function"
							       : "no descriptors in the capture",
			      f);
		else
			fprintf(f, "%s (%s)", frames_proto_name(d->proto), proto_from_name(d->proto_from, 0));
		if (d->in_endpoint || d->out_endpoint)
			fprintf(f, ", IN 0x%02x OUT 0x%02x (%u/%u-byte packets)", d->in_endpoint,
				d->out_endpoint, d->in_max_packet, d->out_max_packet);
		fprintf(f, "; %" PRIu64 " frames out, %" PRIu64 " in", d->frames_out, d->frames_in);
		if (d->malformed)
			fprintf(f, ", %" PRIu64 " malformed transfers", d->malformed);
		fputc('\n', f);
	}
	fprintf(f,
		"frames       %" PRIu64 " out (%" PRIu64 " bytes), %" PRIu64 " in (%" PRIu64
		" bytes); %" PRIu64 " padded, %" PRIu64 " pending, %" PRIu64 " failed, %" PRIu64
		" truncated\n",
		st.frames_out, st.bytes_out, st.frames_in, st.bytes_in, st.padded, st.pending,
		st.failed, st.truncated);
}

/* ---- frames ---- */

static void json_frame(const capture_result *c, size_t i, FILE *f)
{
	const xb_frame *fr = frames_get(c->fs, i);
	char sum[160];
	frame_summary(fr, sum, sizeof sum);
	fprintf(f, "%s{\"index\": %zu", i ? ", " : "", i);
	json_time(f, "time", c, fr->time_ns, !(fr->flags & XB_FRAME_PENDING));
	json_time(f, "submit_time", c, fr->submit_ns, fr->submit_ns != 0);
	fprintf(f, ", \"direction\": \"%s\", \"bus\": %u, \"device\": %u, \"endpoint\": \"0x%02x\"",
		fr->flags & XB_FRAME_IN ? "in" : "out", fr->bus, fr->device, fr->endpoint);
	fprintf(f, ", \"length\": %u, \"transfer_length\": %u, \"captured\": %u, \"urbs\": %u",
		fr->len, fr->transfer_len, fr->captured, fr->urbs);
	fprintf(f, ", \"record\": %" PRIu64 ", \"done_record\": %" PRIu64 ", \"status\": %d",
		fr->record, fr->done_record, fr->status);
	json_bool(f, "padded", fr->flags & XB_FRAME_PADDED);
	json_bool(f, "truncated", fr->flags & XB_FRAME_TRUNCATED);
	json_bool(f, "pending", fr->flags & XB_FRAME_PENDING);
	json_bool(f, "failed", fr->flags & XB_FRAME_FAILED);
	fputs(", \"summary\": ", f);
	xb_json_string(f, sum);
	fputc('}', f);
}

void capture_print_frames(const capture_result *c, int json, FILE *f)
{
	xb_frames_stats st;
	frames_stats(c->fs, &st);
	size_t n = frames_count(c->fs);
	if (!json) {
		text_head(c, f);
		if (n)
			fprintf(f, "\n%5s %14s %-4s %-6s %6s %6s  %s\n", "frame", "time (s)", "dir",
				"device", "length", "xfer", "summary");
		for (size_t i = 0; i < n; i++) {
			const xb_frame *fr = frames_get(c->fs, i);
			char sum[160], dev[16], t[24];
			frame_summary(fr, sum, sizeof sum);
			snprintf(dev, sizeof dev, "%u.%u", fr->bus, fr->device);
			if (fr->flags & XB_FRAME_PENDING)
				snprintf(t, sizeof t, "pending");
			else
				snprintf(t, sizeof t, "%.6f", rel_s(c, fr->time_ns));
			fprintf(f, "%5zu %14s %-4s %-6s %6u %6u  %s%s%s%s\n", i, t,
				fr->flags & XB_FRAME_IN ? "in" : "out", dev, fr->len,
				fr->transfer_len, sum,
				fr->flags & XB_FRAME_PADDED ? " [padding stripped]" : "",
				fr->flags & XB_FRAME_TRUNCATED ? " [truncated]" : "",
				fr->flags & XB_FRAME_FAILED ? " [failed]" : "");
		}
		return;
	}
	json_head(c, f);
	fprintf(f,
		", \"stats\": {\"frames_out\": %" PRIu64 ", \"frames_in\": %" PRIu64
		", \"bytes_out\": %" PRIu64 ", \"bytes_in\": %" PRIu64 ", \"padded\": %" PRIu64
		", \"pending\": %" PRIu64 ", \"failed\": %" PRIu64 ", \"truncated\": %" PRIu64
		", \"truncated_records\": %" PRIu64 ", \"ignored_records\": %" PRIu64
		", \"in_errors\": %" PRIu64 ", \"in_cancelled\": %" PRIu64
		", \"unpaired\": %" PRIu64 ", \"overlong\": %" PRIu64 "}",
		st.frames_out, st.frames_in, st.bytes_out, st.bytes_in, st.padded, st.pending,
		st.failed, st.truncated, st.truncated_records, st.ignored_records, st.in_errors,
		st.in_cancelled, st.unpaired, st.overlong);
	fputs(", \"devices\": [", f);
	for (size_t i = 0; i < frames_device_count(c->fs); i++) {
		const xb_frames_device *d = frames_device(c->fs, i);
		fprintf(f,
			"%s{\"bus\": %u, \"device\": %u, \"ecm\": %s, \"proto\": \"%s\", "
			"\"proto_from\": \"%s\", \"malformed\": %" PRIu64 ", \"in_endpoint\": \"0x%02x\", "
			"\"out_endpoint\": \"0x%02x\", \"in_max_packet\": %u, \"out_max_packet\": "
			"%u, "
			"\"frames_out\": %" PRIu64 ", \"frames_in\": %" PRIu64 "}",
			i ? ", " : "", d->bus, d->device,
			d->ecm == 1   ? "true"
			: d->ecm == 0 ? "false"
				      : "null",
			frames_proto_key(d->proto), proto_from_name(d->proto_from, 1),
			d->malformed, d->in_endpoint, d->out_endpoint, d->in_max_packet, d->out_max_packet,
			d->frames_out, d->frames_in);
	}
	fputs("], \"frames\": [", f);
	for (size_t i = 0; i < n; i++)
		json_frame(c, i, f);
	fputs("]}\n", f);
}

/* ---- turnaround ---- */

static void nonce_hex(const xb_echo *x, uint32_t len, char *buf)
{
	for (uint32_t i = 0; i < len; i++)
		sprintf(buf + 2 * i, "%02x", x->nonce[i]);
	buf[2 * len] = 0;
}

static void json_summary(const capture_result *c, int kind, const char *key, FILE *f)
{
	xb_echo_summary s;
	echo_summarize(c->echoes, c->fs, kind, &s);
	fprintf(f,
		", \"%s\": {\"requests\": %zu, \"replied\": %zu, \"lost\": %zu, \"failed\": %zu, "
		"\"duplicates\": %zu, \"mismatched\": %zu, \"unmatched\": %zu, \"turnarounds\": "
		"%zu",
		key, s.requests, s.replied, s.lost, s.failed, s.duplicates, s.mismatched,
		s.unmatched, s.turnarounds);
	if (s.turnarounds)
		fprintf(f,
			", \"turnaround_min_us\": %.3f, \"turnaround_median_us\": %.3f, "
			"\"turnaround_max_us\": %.3f, \"turnaround_mean_us\": %.3f}",
			(double)s.min_ns / 1e3, s.median_ns / 1e3, (double)s.max_ns / 1e3,
			s.mean_ns / 1e3);
	else
		fputs(", \"turnaround_min_us\": null, \"turnaround_median_us\": null, "
		      "\"turnaround_max_us\": null, \"turnaround_mean_us\": null}",
		      f);
}

static void text_summary(const capture_result *c, int kind, const char *name, FILE *f)
{
	xb_echo_summary s;
	echo_summarize(c->echoes, c->fs, kind, &s);
	if (!s.requests && !s.unmatched) {
		fprintf(f, "%-12s no echo requests\n", name);
		return;
	}
	fprintf(f,
		"%-12s %zu requests, %zu replied, %zu lost, %zu failed, %zu duplicates, %zu "
		"mismatched, %zu unmatched replies\n",
		name, s.requests, s.replied, s.lost, s.failed, s.duplicates, s.mismatched,
		s.unmatched);
	if (s.turnarounds)
		fprintf(f, "%-12s median %.3f ms (min %.3f, max %.3f, mean %.3f; %zu echoes)\n",
			"turnaround", s.median_ns / 1e6, (double)s.min_ns / 1e6,
			(double)s.max_ns / 1e6, s.mean_ns / 1e6, s.turnarounds);
}

static void json_echo(const capture_result *c, size_t i, FILE *f)
{
	const xb_echo *x = echo_get(c->echoes, i);
	const xb_frame *rq = frames_get(c->fs, x->request);
	fprintf(f, "%s{\"index\": %zu, \"kind\": \"%s\"", i ? ", " : "", i,
		echo_kind_name(x->kind));
	if (x->kind == XB_ECHO_ICMP) {
		fprintf(f, ", \"id\": %u, \"seq\": %u", x->id, x->seq);
	} else {
		char hex[2 * XB_ECHO_MAX_NONCE + 1];
		nonce_hex(x, c->eopt->nonce_len, hex);
		fprintf(f, ", \"sport\": %u, \"dport\": %u, \"nonce\": \"%s\"", x->sport, x->dport,
			hex);
	}
	fprintf(f, ", \"size\": %u, \"state\": \"%s\", \"request_frame\": %zu", x->size,
		echo_state_name(echo_state(c->echoes, c->fs, i)), x->request);
	if (x->reply != XB_ECHO_NONE)
		fprintf(f, ", \"reply_frame\": %zu", x->reply);
	else
		fputs(", \"reply_frame\": null", f);
	json_time(f, "sent", c, rq->submit_ns, rq->submit_ns != 0);
	json_time(f, "out_done", c, rq->time_ns, !(rq->flags & XB_FRAME_PENDING));
	const xb_frame *rp = x->reply != XB_ECHO_NONE ? frames_get(c->fs, x->reply) : NULL;
	json_time(f, "reply", c, rp ? rp->time_ns : 0, rp != NULL);
	int64_t ns;
	if (echo_turnaround(c->echoes, c->fs, i, &ns) == 0)
		fprintf(f, ", \"turnaround_us\": %.3f", (double)ns / 1e3);
	else
		fputs(", \"turnaround_us\": null", f);
	fprintf(f, ", \"duplicates\": %u", x->duplicates);
	json_bool(f, "mismatch", x->mismatch);
	fputc('}', f);
}

void capture_print_turnaround(const capture_result *c, int json, FILE *f)
{
	size_t n = echo_count(c->echoes);
	if (json) {
		xb_frames_stats st;
		frames_stats(c->fs, &st);
		json_head(c, f);
		fprintf(f,
			", \"frames_out\": %" PRIu64 ", \"frames_in\": %" PRIu64
			", \"nonce_offset\": %u, \"nonce_len\": %u",
			st.frames_out, st.frames_in, c->eopt->nonce_offset, c->eopt->nonce_len);
		if (c->eopt->udp_port >= 0)
			fprintf(f, ", \"udp_port\": %d", c->eopt->udp_port);
		else
			fputs(", \"udp_port\": null", f);
		json_summary(c, XB_ECHO_ICMP, "icmp", f);
		json_summary(c, XB_ECHO_UDP, "udp", f);
		fputs(", \"echoes\": [", f);
		for (size_t i = 0; i < n; i++)
			json_echo(c, i, f);
		fputs("]}\n", f);
		return;
	}
	text_head(c, f);
	text_summary(c, XB_ECHO_ICMP, "icmp", f);
	text_summary(c, XB_ECHO_UDP, "udp", f);
	if (n)
		fprintf(f, "\n%5s %-4s %-30s %-8s %12s %16s\n", "echo", "kind",
			"id/seq or ports/nonce", "state", "sent (s)", "turnaround (ms)");
	for (size_t i = 0; i < n; i++) {
		const xb_echo *x = echo_get(c->echoes, i);
		const xb_frame *rq = frames_get(c->fs, x->request);
		char what[64], t[24], sent[24];
		if (x->kind == XB_ECHO_ICMP) {
			snprintf(what, sizeof what, "0x%04x/%u", x->id, x->seq);
		} else {
			char hex[2 * XB_ECHO_MAX_NONCE + 1];
			nonce_hex(x, c->eopt->nonce_len, hex);
			snprintf(what, sizeof what, "%u>%u/%s", x->sport, x->dport, hex);
		}
		int64_t ns;
		if (echo_turnaround(c->echoes, c->fs, i, &ns) == 0)
			snprintf(t, sizeof t, "%.3f", (double)ns / 1e6);
		else
			snprintf(t, sizeof t, "-");
		if (rq->submit_ns)
			snprintf(sent, sizeof sent, "%.6f", rel_s(c, rq->submit_ns));
		else
			snprintf(sent, sizeof sent, "-");
		fprintf(f, "%5zu %-4s %-30s %-8s %12s %16s%s\n", i, echo_kind_name(x->kind), what,
			echo_state_name(echo_state(c->echoes, c->fs, i)), sent, t,
			x->duplicates ? " (duplicates)"
			: x->mismatch ? " (payload differs)"
				      : "");
	}
}

/* ---- rate ---- */

void capture_print_rate(const capture_result *c, int json, FILE *f)
{
	const xb_rate_result *r = c->rate;
	const xb_rate_plan *p = c->plan;
	const xb_rate_step *peak = r->n ? &r->steps[r->peak_step] : NULL;
	int have_peak = peak && peak->replied;
	if (json) {
		json_head(c, f);
		fputs(", \"rates\": [", f);
		for (size_t i = 0; i < p->nrates; i++)
			fprintf(f, "%s%u", i ? ", " : "", p->rates[i]);
		fprintf(f,
			"], \"step_ms\": %.3f, \"gap_ms\": %.3f, \"passes\": %u, \"passes_found\": "
			"%u"
			", \"outside\": %zu",
			(double)p->step_ns / 1e6, (double)p->gap_ns / 1e6, p->passes,
			r->passes_found, r->outside);
		json_summary(c, XB_ECHO_UDP, "udp", f);
		if (have_peak)
			fprintf(f,
				", \"peak_reply_rate\": %.3f, \"peak_rate\": %u, \"peak_pass\": %u",
				r->peak, peak->rate, peak->pass);
		else
			fputs(", \"peak_reply_rate\": null, \"peak_rate\": null, \"peak_pass\": "
			      "null",
			      f);
		fputs(", \"steps\": [", f);
		for (size_t i = 0; i < r->n; i++) {
			const xb_rate_step *s = &r->steps[i];
			fprintf(f, "%s{\"pass\": %u, \"rate\": %u", i ? ", " : "", s->pass,
				s->rate);
			json_time(f, "start", c, s->start_ns, s->start_ns != 0);
			fprintf(f,
				", \"sent\": %zu, \"replied\": %zu, \"sent_rate\": %.3f, "
				"\"reply_rate\": %.3f}",
				s->sent, s->replied, s->sent_rate, s->reply_rate);
		}
		fputs("]}\n", f);
		return;
	}
	text_head(c, f);
	text_summary(c, XB_ECHO_UDP, "udp", f);
	fprintf(f,
		"plan         %zu steps of %.3f ms (gap %.3f ms), %u passes (%u found); %zu "
		"requests outside every step\n",
		p->nrates, (double)p->step_ns / 1e6, (double)p->gap_ns / 1e6, p->passes,
		r->passes_found, r->outside);
	if (have_peak)
		fprintf(f, "peak         %.1f replies/s (offered %u/s, pass %u)\n", r->peak,
			peak->rate, peak->pass + 1);
	else
		fputs("peak         no replies\n", f);
	fprintf(f, "\n%7s", "offered");
	for (unsigned q = 0; q < p->passes; q++) {
		char h[16];
		snprintf(h, sizeof h, "pass %u", q + 1);
		fprintf(f, "  %12s", h);
	}
	fputc('\n', f);
	for (size_t s = 0; s < p->nrates; s++) {
		fprintf(f, "%7u", p->rates[s]);
		for (unsigned q = 0; q < p->passes; q++) {
			const xb_rate_step *st = &r->steps[(size_t)q * p->nrates + s];
			if (st->start_ns)
				fprintf(f, "  %12.1f", st->reply_rate);
			else
				fprintf(f, "  %12s", "-");
		}
		fputc('\n', f);
	}
}
