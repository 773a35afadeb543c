#!/usr/bin/env python3
"""Writes tests/fixtures/tokens/: the documents mcpguard's Claude token counts are checked on.

Real text where the repository or the shared corpus has it (MCP tool results captured from
published servers, this project's own code, a git diff, a changelog), hand-written prose in a
dozen languages (the opening of the Universal Declaration of Human Rights and everyday sentences),
and generated data of the shapes tools return (hex digests, UUIDs, base64, logs with stack
traces). Code is copied into `.txt` files: it is data here. The copies are a snapshot: run it
again after those sources changed and the documents change with them (then re-run
scripts/ctok-reference.py).

    python3 scripts/make-token-fixtures.py [path/to/corpus]   # default tests/fixtures/corpus
"""
import base64
import hashlib
import json
import sys
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "tokens"
CORPUS = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "tests" / "fixtures" / "corpus"

PROSE = {
    "prose-en.txt": (
        "All human beings are born free and equal in dignity and rights. They are endowed with "
        "reason and conscience and should act towards one another in a spirit of brotherhood.\n\n"
        "Everyone is entitled to all the rights and freedoms set forth in this Declaration, "
        "without distinction of any kind, such as race, colour, sex, language, religion, political "
        "or other opinion, national or social origin, property, birth or other status. The "
        "meeting is moved to Thursday at 3 p.m.; please bring the Q3 figures (they're due) and "
        "don't forget the NASA briefing.\n"
    ),
    "prose-de.txt": (
        "Alle Menschen sind frei und gleich an Würde und Rechten geboren. Sie sind mit Vernunft "
        "und Gewissen begabt und sollen einander im Geist der Brüderlichkeit begegnen.\n"
        "Die Straßenbahn fährt heute wegen Bauarbeiten nur bis zur Haltestelle Hauptbahnhof; "
        "Fahrgäste Richtung Süden nutzen bitte den Schienenersatzverkehr.\n"
    ),
    "prose-fr.txt": (
        "Tous les êtres humains naissent libres et égaux en dignité et en droits. Ils sont doués "
        "de raison et de conscience et doivent agir les uns envers les autres dans un esprit de "
        "fraternité.\nL'élève a oublié son cahier à l'école ; il reviendra le chercher après "
        "le déjeuner, vers 14 h 30.\n"
    ),
    "prose-es.txt": (
        "Todos los seres humanos nacen libres e iguales en dignidad y derechos y, dotados como "
        "están de razón y conciencia, deben comportarse fraternalmente los unos con los otros.\n"
        "¿Dónde está la estación? ¡Qué día tan bonito! El niño comió piña y jamón en la montaña.\n"
    ),
    "prose-ru.txt": (
        "Все люди рождаются свободными и равными в своем достоинстве и правах. Они наделены "
        "разумом и совестью и должны поступать в отношении друг друга в духе братства.\n"
        "Поезд отправляется с третьего пути в 18:45; пассажиров просят занять свои места.\n"
    ),
    "prose-el.txt": (
        "Όλοι οι άνθρωποι γεννιούνται ελεύθεροι και ίσοι στην αξιοπρέπεια και τα δικαιώματα. "
        "Είναι προικισμένοι με λογική και συνείδηση, και οφείλουν να συμπεριφέρονται μεταξύ τους "
        "με πνεύμα αδελφοσύνης.\nΣΗΜΕΙΩΣΗ: Η ΣΥΝΑΝΤΗΣΗ ΑΝΑΒΑΛΛΕΤΑΙ.\n"
    ),
    "prose-ja.txt": (
        "すべての人間は、生まれながらにして自由であり、かつ、尊厳と権利とについて平等である。"
        "人間は、理性と良心とを授けられており、互いに同胞の精神をもって行動しなければならない。\n"
        "東京駅から新大阪駅までは新幹線で約2時間30分です。チケットはオンラインで購入できます。\n"
    ),
    "prose-zh.txt": (
        "人人生而自由，在尊严和权利上一律平等。他们赋有理性和良心，并应以兄弟关系的精神相对待。\n"
        "请在周五之前提交季度报告，并抄送财务部和法务部。会议室已预订（三楼，301室）。\n"
    ),
    "prose-ko.txt": (
        "모든 인간은 태어날 때부터 자유로우며 그 존엄과 권리에 있어 동등하다. 인간은 천부적으로 "
        "이성과 양심을 부여받았으며 서로 형제애의 정신으로 행동하여야 한다.\n"
        "내일 오전 10시에 회의가 있습니다. 자료를 미리 준비해 주세요.\n"
    ),
    "prose-ar.txt": (
        "يولد جميع الناس أحرارًا متساوين في الكرامة والحقوق. وقد وهبوا عقلاً وضميرًا وعليهم أن "
        "يعامل بعضهم بعضًا بروح الإخاء.\nسيصل القطار إلى المحطة في الساعة ٨:٤٥ مساءً.\n"
    ),
    "prose-hi.txt": (
        "सभी मनुष्यों को गौरव और अधिकारों के मामले में जन्मजात स्वतन्त्रता और समानता प्राप्त है। "
        "उन्हें बुद्धि और अन्तरात्मा की देन प्राप्त है और परस्पर उन्हें भाईचारे के भाव से बर्ताव "
        "करना चाहिए।\nकल सुबह ९ बजे बैठक होगी।\n"
    ),
    "prose-th.txt": (
        "มนุษย์ทั้งหลายเกิดมามีอิสระและเสมอภาคกันในเกียรติศักดิ์และสิทธิ "
        "ต่างมีเหตุผลและมโนธรรม และควรปฏิบัติต่อกันด้วยเจตนารมณ์แห่งภราดรภาพ\n"
    ),
    "prose-pl.txt": (
        "Wszyscy ludzie rodzą się wolni i równi pod względem swej godności i swych praw. Są oni "
        "obdarzeni rozumem i sumieniem i powinni postępować wobec innych w duchu braterstwa.\n"
        "Zażółć gęślą jaźń. Źdźbło trawy połyskiwało w słońcu.\n"
    ),
    "prose-tr.txt": (
        "Bütün insanlar hür, haysiyet ve haklar bakımından eşit doğarlar. Akıl ve vicdana "
        "sahiptirler ve birbirlerine karşı kardeşlik zihniyeti ile hareket etmelidirler.\n"
        "İstanbul'dan İzmir'e giden otobüs ISPARTA üzerinden geçiyor.\n"
    ),
}

GO_CODE = '''package main

import (
\t"encoding/json"
\t"fmt"
\t"net/http"
\t"time"
)

// Booking is one reservation as the API returns it.
type Booking struct {
\tID        string    `json:"id"`
\tStatus    string    `json:"status"`
\tCreatedAt time.Time `json:"createdAt"`
\tTotal     float64   `json:"total"`
}

func listBookings(w http.ResponseWriter, r *http.Request) {
\tlimit := 50
\tif v := r.URL.Query().Get("limit"); v != "" {
\t\tif _, err := fmt.Sscanf(v, "%d", &limit); err != nil || limit > 200 {
\t\t\thttp.Error(w, "limit must be 1..200", http.StatusBadRequest)
\t\t\treturn
\t\t}
\t}
\tbookings := make([]Booking, 0, limit)
\tfor i := 0; i < limit; i++ {
\t\tbookings = append(bookings, Booking{ID: fmt.Sprintf("b-%04d", i), Status: "confirmed"})
\t}
\tw.Header().Set("Content-Type", "application/json")
\t_ = json.NewEncoder(w).Encode(bookings)
}

func main() {
\thttp.HandleFunc("/bookings", listBookings)
\tfmt.Println(http.ListenAndServe("127.0.0.1:8080", nil))
}
'''

JAVA_LOG = '''2026-11-20 09:14:02,117 INFO  [main] o.s.b.w.e.tomcat.TomcatWebServer - Tomcat started on port(s): 8080 (http)
2026-11-20 09:14:07,482 WARN  [http-nio-8080-exec-3] c.e.booking.PricingService - rate cache miss for region=eu-west-1, falling back to DB
2026-11-20 09:14:07,913 ERROR [http-nio-8080-exec-3] o.a.c.c.C.[.[.[/].[dispatcherServlet] - Servlet.service() threw exception
java.lang.NullPointerException: Cannot invoke "com.example.booking.Price.getAmount()" because "price" is null
\tat com.example.booking.PricingService.total(PricingService.java:88)
\tat com.example.booking.BookingController.quote(BookingController.java:142)
\tat java.base/jdk.internal.reflect.DirectMethodHandleAccessor.invoke(DirectMethodHandleAccessor.java:103)
\tat java.base/java.lang.reflect.Method.invoke(Method.java:580)
\tat org.springframework.web.method.support.InvocableHandlerMethod.doInvoke(InvocableHandlerMethod.java:255)
\tat org.springframework.web.servlet.FrameworkServlet.processRequest(FrameworkServlet.java:1014)
\t... 48 common frames omitted
Caused by: java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available, request timed out after 30004ms.
\tat com.zaxxer.hikari.pool.HikariPool.createTimeoutException(HikariPool.java:696)
\tat com.zaxxer.hikari.pool.HikariPool.getConnection(HikariPool.java:181)
2026-11-20 09:14:08,001 INFO  [scheduling-1] c.e.booking.Reaper - expired 17 holds in 12 ms
'''

PY_LOG = '''[2026-11-20T09:15:31.402Z] INFO worker.py:212 processing job id=7f3c2a91 queue=exports attempt=1
[2026-11-20T09:15:33.019Z] ERROR worker.py:240 job 7f3c2a91 failed
Traceback (most recent call last):
  File "/srv/app/worker.py", line 236, in run_job
    result = handler(job.payload)
             ^^^^^^^^^^^^^^^^^^^^
  File "/srv/app/exports/csv.py", line 58, in export_bookings
    writer.writerow({k: row[k] for k in FIELDS})
                        ~~~^^^
KeyError: 'priceBreakdown'
[2026-11-20T09:15:33.020Z] WARNING worker.py:251 retrying job 7f3c2a91 in 30s (attempt 2 of 5)
[2026-11-20T09:16:03.377Z] INFO worker.py:212 processing job id=7f3c2a91 queue=exports attempt=2
'''

MIXED = {
    "emoji.txt": "Release shipped 🚀🎉 thanks team! 👍🏽👩‍💻 Status: ✅ tests, ⚠️ docs, ❌ perf.\n😀😀😀 🇫🇷🇯🇵 ❤️‍🔥\n",
    "combining-marks.txt": "e\u0301 a\u0300 n\u0303 Z\u0327\u030c, the NFC forms: é à ñ; zalgo: "
                           "h\u0335\u0310e\u0334\u0311l\u0336\u0312l\u0337\u0313o\u0338\u0314; "
                           "Vietnamese: Tiếng Việt có dấu; Devanagari: क्षि\n",
    "crlf.txt": "line one\r\nline two\r\n\r\nid,status,total\r\nb-1,confirmed,120.50\r\nb-2,cancelled,0\r\n",
    "trailing-newlines.txt": "The last line of a tool result.\n\n\n\n\n",
    "whitespace-and-controls.txt": "\tindented\ttabs\n    four spaces\n        eight spaces\n\x0bvt\x0cff\x00nul\u00a0nbsp\u3000ideographic\n",
    "quotes-and-apostrophes.txt": "\u201cSmart quotes\u201d and \u2018single\u2019 ones, \u201elow-9\u201d; "
                                  "it's, we'll, they're, I'd, can't, 'quoted', O'Brien's.\n",
    "empty.txt": "",
    "one-space.txt": " ",
    "markdown.md": "# Release notes\n\n## 2.4.0\n\n- **Added** `--format sarif` (see #142)\n- Fixed a "
                   "crash when `limit=0`\n\n| tool | p50 | p95 |\n|------|----:|----:|\n| search | 12 ms | 48 ms |\n\n"
                   "> Note: the `v1` API is **deprecated** and will be removed in 3.0.\n",
}


def corpus_text(name: str, pointer) -> str:
    doc = json.loads((CORPUS / name).read_text(encoding="utf-8"))
    for key in pointer:
        doc = doc[key]
    return doc


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = {}
    files.update(PROSE)
    files.update(MIXED)
    files["code-go.go.txt"] = GO_CODE
    files["log-java-stacktrace.log"] = JAVA_LOG
    files["log-python-traceback.log"] = PY_LOG
    files["code-rust.rs.txt"] = (ROOT / "src" / "json" / "python.rs").read_text(encoding="utf-8")
    files["code-python.py.txt"] = (ROOT / "scripts" / "make-examples.py").read_text(encoding="utf-8")
    files["code-javascript.js.txt"] = (ROOT / "scripts" / "token-reference.js").read_text(encoding="utf-8")
    files["code-shell.sh.txt"] = (ROOT / ".ci" / "run").read_text(encoding="utf-8")

    # Real MCP traffic from the shared corpus: whole messages and the text the model sees.
    files["mcp-tools-list.json"] = (CORPUS / "everything__tools_list.json").read_text(encoding="utf-8")
    files["mcp-time-call.json"] = (CORPUS / "time__tools_call__get_current_time__warsaw.json").read_text(encoding="utf-8")
    files["mcp-structured.json"] = (CORPUS / "everything__tools_call__get-structured-content__new_york.json").read_text(encoding="utf-8")
    files["mcp-error.json"] = (CORPUS / "everything__error__unknown_tool.json").read_text(encoding="utf-8")
    files["mcp-resource-features.md"] = corpus_text("everything__resources_read__features_md.json", ["result", "contents", 0, "text"])
    files["diff-git.diff"] = corpus_text("git__tools_call__git_diff__head~10.json", ["result", "content", 0, "text"])[:24000]
    files["git-log.txt"] = corpus_text("git__tools_call__git_log__200.json", ["result", "content", 0, "text"])[:16000]
    files["changelog.md"] = corpus_text("filesystem__tools_call__read_text_file__regex_changelog.json", ["result", "content", 0, "text"])[:20000]
    files["directory-tree.json"] = corpus_text("filesystem__tools_call__directory_tree__root.json", ["result", "content", 0, "text"])[:20000]
    image = json.loads((CORPUS / "everything__tools_call__get-tiny-image.json").read_text(encoding="utf-8"))
    files["base64-png.txt"] = next(c["data"] for c in image["result"]["content"] if c["type"] == "image")

    # JSON records, pretty and minified, as list tools return them.
    bookings = json.loads((ROOT / "tests" / "fixtures" / "bookings-500.json").read_text(encoding="utf-8"))
    sample = {"bookings": bookings["bookings"][:12], "total": len(bookings["bookings"])}
    files["json-pretty.json"] = json.dumps(sample, indent=2, ensure_ascii=False) + "\n"
    files["json-minified.json"] = json.dumps(sample, separators=(",", ":"), ensure_ascii=False)

    # Identifiers tools list by the hundred.
    files["hex-sha256.txt"] = "\n".join(hashlib.sha256(f"blob-{i}".encode()).hexdigest() for i in range(60)) + "\n"
    files["hex-dump.txt"] = " ".join(f"{b:02x}" for b in hashlib.sha512(b"mcpguard").digest() * 8) + "\n"
    files["uuid-list.json"] = json.dumps([str(uuid.uuid5(uuid.NAMESPACE_URL, f"https://example.com/{i}")) for i in range(80)], indent=1) + "\n"
    files["base64-random.txt"] = base64.b64encode(b"".join(hashlib.sha256(bytes([i])).digest() for i in range(96))).decode() + "\n"

    for name, text in sorted(files.items()):
        # newline="" keeps CRLF as written.
        with open(OUT / name, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    print(f"wrote {len(files)} documents to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
