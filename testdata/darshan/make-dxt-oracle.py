"""The DXT oracle: per DXT log of the Darshan corpus, per DXT module, the records, read and write
segments and their byte sums, read with PyDarshan (darshan-util's C reader). Usage:
`python make-dxt-oracle.py CORPUS_DARSHAN_DIR > expected-dxt-pydarshan-3.5.0.json`."""
import json, sys, os, glob
import darshan
root = sys.argv[1]
out = {}
for path in sorted(glob.glob(os.path.join(root, "logs", "**", "*.darshan"), recursive=True)):
    rel = os.path.relpath(path, root)
    try:
        report = darshan.DarshanReport(path, read_all=False)
    except Exception as error:
        print("skip", rel, error, file=sys.stderr); continue
    mods = [m for m in report.modules if m.startswith("DXT_")]
    if not mods:
        continue
    entry = {}
    for mod in mods:
        try:
            report.mod_read_all_dxt_records(mod, dtype="pandas")
        except Exception as error:
            print("fail", rel, mod, error, file=sys.stderr); continue
        recs = report.records[mod]
        reads = writes = rbytes = wbytes = 0
        for rec in recs:
            r = rec["read_segments"]; w = rec["write_segments"]
            reads += len(r); writes += len(w)
            rbytes += int(r["length"].sum()) if len(r) else 0
            wbytes += int(w["length"].sum()) if len(w) else 0
        entry[mod] = {"records": len(recs), "reads": reads, "writes": writes, "read_bytes": rbytes, "write_bytes": wbytes}
    out[rel] = entry
json.dump(out, sys.stdout, indent=1, sort_keys=True)
