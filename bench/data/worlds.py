"""Hand-written facts and queries of the quality set's four users' worlds.

Format, one block per fact:

    @<fact id> <memory_type>
    <content, over as many lines as needed>
    ? <style> [<other relevant fact ids, comma-separated>] | <query>

The fact itself is always relevant to its queries; a query may name more relevant facts.
Facts without queries are near-duplicates or confusable distractors. Styles: `paraphrase`
(shares no content word with a relevant memory: checked when the set is built), `keyword`,
`identifier` (exact names, ids, hostnames, codes) and `question` (natural wording that shares
some words with the answer).
"""

FINTECH = """
@f01 semantic
Priya Raman leads the payments backend team and approves every schema migration before it
reaches production.
? paraphrase | Who must sign off when we alter database tables?
? keyword | schema migration approval
@f02 semantic
Priya Ramesh from QA runs the full regression suite every Thursday morning ahead of the
release train.
? identifier | Priya Ramesh
? paraphrase | When does the tester check that nothing broke prior to shipping?
@f03 semantic
Jun Watanabe owns ledger-sync; page him when balances drift between Kafka and Postgres.
? paraphrase | Whom do I call if account totals disagree across the event stream and the
relational store?
? keyword | ledger-sync owner page
@f04 semantic
The payout-scheduler cron runs at 02:30 UTC and must finish before the 06:00 bank cut-off.
? paraphrase | What time does the nightly job that sends money to merchants start?
? question | when does the payout-scheduler run
@f05 semantic
The payout-scheduler retry job runs at 03:30 UTC for payouts that failed on the first attempt.
@f06 semantic
Project Heron moves billing from MySQL 5.7 to Postgres 16; the cut-over is planned for
14 March.
? paraphrase | When do we switch the invoicing database over to the new engine?
? identifier | Project Heron
@f07 tool_result
Project Heron dry run on staging took 3 h 40 min; the row-count check found 12 mismatches in
invoices_2019.
? keyword | Heron dry run mismatches
@f08 semantic
Project Kestrel rolls out 3-D Secure 2 for EU cards; Lena Okafor is the product owner.
? paraphrase | Who is in charge of the strong customer authentication launch for European
shoppers?
? identifier | Project Kestrel
@f09 profile
Lena Okafor prefers written updates in the #payments-status channel over status meetings.
? paraphrase | How does our product manager like to receive progress reports?
@f10 semantic
Marcus Bell requires that card numbers never appear in logs; the log scrubber masks anything
matching a 16-digit PAN.
? paraphrase | What is the rule about sensitive payment data showing up in diagnostic output?
? keyword | log scrubber PAN
@f11 procedural
To rotate the webhook signing secret: create the new secret in Vault, deploy webhook-relay
with both secrets, wait 24 hours, then delete the old one.
? paraphrase | Steps for replacing the key we use to authenticate outgoing callbacks
? question | how do I rotate the webhook signing secret
@f12 semantic
The fraud-scorer model is retrained weekly on Sundays; a score above 0.82 blocks the payment,
0.65 to 0.82 goes to manual review.
? paraphrase | Above what risk number do we automatically decline a suspicious transaction?
? keyword | fraud-scorer threshold manual review
@f13 semantic
The fraud-scorer shadow model uses threshold 0.78 and only logs its decisions.
@f14 semantic
Dmitri Volkov is the DBA; he wants index changes on pg-ledger-01 scheduled outside
09:00-18:00 CET.
? paraphrase | Who is our database administrator?
? identifier f15 | pg-ledger-01
@f15 semantic
pg-ledger-01 is the primary Postgres for ledger data; pg-ledger-02 is its streaming replica in
eu-west-1b.
@f16 semantic
Aisha Karimi builds the checkout front end in React 18 and TypeScript; she dislikes
CSS-in-JS.
? paraphrase | Which styling approach does the web shop developer avoid?
? identifier | Aisha Karimi
@f17 profile
Team preference: Python services use ruff and mypy --strict; pull requests need two approvals.
? paraphrase | What linters and type checking do we enforce, and how many reviewers must accept
code changes?
? keyword | ruff mypy strict
@f18 semantic
Refunds over 10,000 EUR need a second approver from finance (currently Sofia Lindqvist).
? paraphrase | Who else must agree before we return a large sum to a customer?
? identifier | Sofia Lindqvist
@f19 semantic
Refunds over 1,000 EUR are logged to the refund-audit topic; no second approver is needed
below 10,000 EUR.
@f20 semantic
The fx-rates service pulls ECB reference rates at 16:15 CET and caches them for 24 hours in
Redis.
? paraphrase | Where do our currency conversion numbers come from and how long are they kept?
@f21 profile
User prefers answers with code examples in Python rather than Java, and short explanations.
? paraphrase | What language should sample snippets be written in for me?
@f22 semantic
Incident on 3 Feb: webhook-relay dropped 1,204 events because the Kafka consumer group lag
exceeded retention; fixed by raising retention to 7 days.
? paraphrase | Why did we lose notifications early last month and what was the remedy?
? keyword | webhook-relay consumer lag retention
@f23 semantic
card-vault runs only in the PCI segment; access requires a hardware key and approval from
Marcus Bell.
? paraphrase | What do I need to reach the tokenization service holding payment credentials?
@f24 semantic
The invoice-renderer uses WeasyPrint; rendering a 40-page invoice takes about 6 seconds.
? keyword | invoice-renderer WeasyPrint
? paraphrase | How slow is generating a lengthy bill as PDF?
@f25 semantic
Tomás Vidal maintains the data warehouse exports; the nightly dbt run must finish by 05:00.
? identifier | Tomás Vidal
? question | who maintains the data warehouse exports
"""

SRE = """
@s01 semantic
On-call rotation: Kenji Mori covers weekdays, Fatima Zahra covers weekends; handover is
Monday 10:00.
? paraphrase | Who do I ring on Saturday if production is down?
? identifier | Fatima Zahra
@s02 procedural
Runbook: if the disk on a Kafka broker passes 85%, shrink retention on the biggest topic to
48 h before adding storage.
? paraphrase | What's the first step when a message queue node is running out of space?
? keyword | kafka broker disk retention
@s03 semantic
The Grafana dashboard 'Edge Latency' shows p99 per region; the SLO is 300 ms at the 99th
percentile.
? paraphrase | What response-time target do we promise for the slowest 1% of requests?
@s04 semantic
Terraform state lives in the S3 bucket nw-tfstate-prod with DynamoDB locking; never run apply
from a laptop.
? paraphrase | Where is the infrastructure-as-code bookkeeping file stored?
? identifier | nw-tfstate-prod
@s05 semantic
INC-2291 root cause: an expired intermediate certificate on lb-edge-04 broke TLS for 38
minutes.
? identifier | INC-2291
? paraphrase | Why were secure connections failing at the load balancer during that outage?
@s06 semantic
Certificates are issued by cert-manager with Let's Encrypt; renewal starts 30 days before
expiry.
? paraphrase | How early are HTTPS credentials refreshed?
@s07 profile
Kenji Mori prefers incident timelines in UTC and hates screenshots of terminals; paste text
instead.
? paraphrase | How should I share command output with our weekday pager person?
@s08 procedural
Postgres major upgrades follow the blue-green procedure: logical replication to the new
cluster, verify row counts, switch the pgbouncer target, keep the old cluster 7 days.
? paraphrase | How do we move the relational database to a newer version without downtime?
? question | what is the procedure for a postgres major upgrade
@s09 semantic
The staging cluster k8s-stg-2 scales to zero between 20:00 and 07:00 to save cost.
? paraphrase | Why is the pre-production environment unavailable at night?
? identifier | k8s-stg-2
@s10 semantic
Backups: Postgres WAL is shipped to nw-backups every 60 s; full base backups run nightly at
01:00 and are kept 35 days.
? paraphrase | How much data could we lose if the primary database dies?
? keyword | WAL base backup retention
@s11 semantic
Alert 'HighErrorRate' fires when 5xx exceed 2% for 5 minutes; it pages only during business
hours.
? keyword | HighErrorRate alert
? paraphrase s12 | When does the failing-responses warning wake someone up?
@s12 semantic
Alert 'HighErrorRateCritical' fires when 5xx exceed 10% for 2 minutes and always pages.
@s13 semantic
Noor Haddad is the security engineer; all firewall rule changes need her review in the
#netsec channel.
? identifier | Noor Haddad
? paraphrase | Who checks modifications to network access policies?
@s14 procedural
The CDN is Fastly; purging the whole cache requires the 'purge_all' token stored in
1Password vault 'Ops-Edge'.
? paraphrase | How can I flush everything held by the content delivery network?
@s15 semantic
Log retention: application logs 14 days in Loki, audit logs 400 days in S3 Glacier.
? paraphrase | How long do we keep records of who did what for compliance?
? keyword | Loki log retention
@s16 semantic
Deploy freeze every year from 20 December to 3 January except for security fixes.
? paraphrase | Can we ship changes during the winter holidays?
@s17 profile
User prefers kubectl commands shown with the full --context flag to avoid touching the wrong
cluster.
? paraphrase | How should container orchestration CLI snippets be written for me?
@s18 semantic
The load balancers lb-edge-01 to lb-edge-04 run HAProxy 2.8 with a 60 s idle timeout.
? identifier s05 | lb-edge-04
? keyword | HAProxy idle timeout
@s19 semantic
Redis cluster redis-sess-01 holds user sessions; eviction policy volatile-lru, maxmemory
12 GB.
? paraphrase | Where are logged-in visitor states kept and what happens when storage fills up?
@s20 semantic
Chaos day is the first Wednesday of each quarter; Ivan Petrov runs it and announces targets a
week ahead.
? paraphrase | When do we deliberately break things to test resilience?
? identifier | Ivan Petrov
@s21 procedural
To drain a Kubernetes node: cordon it, run kubectl drain with --ignore-daemonsets
--delete-emptydir-data, wait for pods to reschedule, then patch.
? keyword | drain node ignore-daemonsets
? question | how do I take a node out of service safely
@s22 tool_result
Cost report May: compute 41,200 USD, storage 9,870 USD, egress 6,310 USD; egress grew 18%
month over month.
? paraphrase | How much did we spend on outbound traffic last spring?
@s23 tool_result
Cost report April: compute 39,800 USD, storage 9,410 USD, egress 5,350 USD.
@s24 semantic
Status page is statuspage.io; the incident commander posts the first update within 15
minutes.
? paraphrase | How quickly must customers be told about an outage?
"""

LAB = """
@m01 semantic
Dr. Elena Sokolova supervises the retrieval group; the weekly sync is Tuesday 14:00 in room
B-204.
? paraphrase | When does the search-models team meet with its head?
? identifier m22 | Elena Sokolova
@m02 semantic
The eval-harness uses BEIR and MTEB subsets; nDCG@10 is the headline metric for every
retrieval paper.
? paraphrase | What number do we report first when comparing ranking systems?
@m03 tool_result
Run exp-0412 (contrastive pretraining, batch 4096, lr 3e-4) reached nDCG@10 0.512 on the dev
split.
? identifier | exp-0412
@m04 semantic
GPU nodes gpu-a100-01 to gpu-a100-08 are booked through the Slurm partition 'a100'; the
maximum job length is 72 hours.
? paraphrase | How long may a single training task occupy the accelerator machines?
? keyword | slurm partition a100 job length
@m05 procedural
Datasets live in /data/corvid/ with DVC; never commit raw data to git, push it with dvc push
to the MinIO remote.
? paraphrase | How do I share a big corpus with colleagues without bloating the repository?
@m06 semantic
Hiroshi Tanaka owns the tokenizer-service; the vocabulary is 50k BPE merges trained on the
2023 crawl.
? paraphrase | Who maintains the component that splits text into subword units?
? identifier | Hiroshi Tanaka
@m07 semantic
Mixed precision: use bf16 on A100s; fp16 diverged twice on the 1.3B model after 20k steps.
? paraphrase | Which reduced numeric format is safe for training on our big accelerators?
@m08 semantic
Amara Nwosu is writing the NeurIPS submission on sparse-dense hybrid retrieval; the deadline
is 15 May.
? paraphrase | Who is preparing the conference paper that mixes lexical and embedding search?
? identifier | Amara Nwosu
@m09 semantic
The feature-store snapshot fs-2024-11-03 has a label leak: the click column was computed
after the query time.
? paraphrase | Which saved training table accidentally contains future information?
? identifier | fs-2024-11-03
@m10 semantic
The feature-store snapshot fs-2024-11-30 was rebuilt with point-in-time joins and is clean.
@m11 profile
User prefers plots with a log-scale x axis and error bars from 3 seeds.
? paraphrase | How do I like my charts drawn?
@m12 procedural
To resume a preempted job: pass --resume-from with the latest checkpoint in /ckpt/<run>/; the
data loader skips consumed shards automatically.
? paraphrase | My training got killed by the scheduler; how do I continue where it stopped?
? question | how do I resume a preempted job
@m13 tool_result
Learning-rate sweep for the 350M model: 1e-4 underfits, 6e-4 best, 1e-3 unstable after
warmup.
? paraphrase | What step size worked well for the mid-sized network?
@m14 semantic
Budget: the lab has 120k GPU hours for 2025; 40% is reserved for the distillation project.
? paraphrase | How much accelerator time can we spend this year?
@m15 semantic
Project Wren distils the 1.3B reranker into a 60M student; the target is 95% of teacher nDCG
at 10x lower latency.
? identifier | Project Wren
? paraphrase | What is the aim of compressing the large reordering model into a small one?
@m16 semantic
Label Studio annotators are paid per item; the inter-annotator agreement target is Cohen's
kappa above 0.7.
? keyword | annotator agreement kappa
@m17 semantic
The data-loader bug ML-2207 caused duplicated shards in epoch 2; fixed in commit 9f3c2ab.
? identifier | ML-2207
? question | which bug duplicated shards in the data loader
@m18 semantic
Paper reading group is Fridays at 11:00; this week Lukas Becker presents ColBERTv2.
? identifier | Lukas Becker
@m19 semantic
Checkpoints older than 30 days on /ckpt are deleted automatically unless tagged keep.
? paraphrase | Will my saved model weights disappear if I leave them for a couple of months?
@m20 semantic
The inference server uses vLLM 0.6 with tensor parallel 2 on gpu-a100-07 for the 7B
generator.
? keyword | vLLM tensor parallel
@m21 procedural
Wandb project corvid/retrieval tracks every run; tag runs with the git sha and dataset
version.
? paraphrase | What should I label my experiment logs with so they're reproducible?
@m22 profile
Elena Sokolova prefers that reviewers get ablation tables before the main results.
@m23 semantic
The negative-sampling script mines hard negatives with BM25 top-100 then drops the top 3 as
likely false negatives.
? paraphrase | How are difficult wrong examples chosen for contrastive training?
@m24 tool_result
Eval on MS MARCO dev: BM25 MRR@10 0.187, our dense model 0.352, hybrid 0.371.
? keyword | MS MARCO MRR@10 hybrid
"""

PERSONAL = """
@p01 semantic
My sister Clara's birthday is 12 August; she collects vintage fountain pens.
? paraphrase | What gift would suit my sibling and when is it due?
@p02 semantic
I am allergic to penicillin; amoxicillin gave me hives in 2019.
? paraphrase | Which antibiotics should doctors avoid prescribing me?
? keyword | penicillin allergy
@p03 semantic
Dentist: Dr. Mehta at Riverside Dental, check-ups every six months, next one 4 November at
08:30.
? identifier | Dr. Mehta
? paraphrase | When do I see the tooth doctor again?
@p04 semantic
Dr. Mehra is Clara's physiotherapist at the Elm Street clinic.
@p05 profile
I prefer aisle seats on flights and never want red-eye departures.
? paraphrase | Where do I like to sit on a plane, and which trips should be avoided?
@p06 semantic
Flight to Lisbon on 18 May, TAP TP1351 departing 07:40, booking reference QX7K2M.
? identifier | QX7K2M
? paraphrase | When do I leave for Portugal?
@p07 semantic
The Wi-Fi password at the cabin in Åre is 'moose-lantern-42'.
? paraphrase | How do I get online at the mountain holiday house?
? question | what is the wifi password at the cabin
@p08 semantic
Running plan: 3 easy runs of 6 km plus one long run on Sundays, building to 21 km for the
Göteborgsvarvet half marathon.
? paraphrase | What's my weekly jogging schedule leading up to the race?
@p09 semantic
My landlord is Mr. Oduya; rent of 11,400 SEK is due on the 25th, paid by standing order.
? paraphrase | How much do I pay for the apartment each month and when?
@p10 profile
I'm vegetarian but eat fish about once a week; I dislike coriander.
? paraphrase | Any dietary restrictions to keep in mind when picking a restaurant for me?
@p11 semantic
Car: 2017 Volvo V60, registration ABC 123, service due at 90,000 km; winter tyres are in
storage at Däckia.
? keyword | winter tyres storage
@p12 semantic
Recipe I liked: dal with red lentils, coconut milk, ginger and lime; 25 minutes.
? paraphrase | That quick Indian legume dish I enjoyed, what went into it?
@p13 semantic
Work: I'm a UX researcher at Fjord Labs; my manager is Helena Berg; I work from home on
Mondays and Fridays.
? paraphrase | Which days am I remote?
? identifier | Helena Berg
@p14 semantic
Kids: Leo (8) has football on Tuesdays 17:00 at Slottsskogen; Maja (5) has swimming on
Saturdays 09:15.
? paraphrase | When does my son have soccer practice?
@p15 semantic
Maja's swimming moves to Sundays 10:00 from September.
@p16 semantic
Insurance: home policy with Folksam, number HF-448213, renewal 1 March.
? identifier | HF-448213
? question | when does the home insurance renew
@p17 semantic
I take 50 µg levothyroxine every morning on an empty stomach.
? paraphrase | What thyroid medication am I on?
@p18 semantic
Book club reads 'The Overstory' for October; we meet at Nadia's place on the last Thursday.
? paraphrase | Which novel is the literary circle doing next?
@p19 profile
I prefer reminders the evening before, not on the day itself.
? paraphrase | When should you nudge me about upcoming things?
@p20 semantic
Passport expires 2 February 2027; renew at least 6 months before long trips.
? paraphrase | When is my travel document no longer valid?
@p21 semantic
Electricity contract with Tibber is hourly spot price; the cheapest hours are usually
02:00-05:00, run the dishwasher then.
? paraphrase | When is power least expensive for the washing machine?
@p22 semantic
Bank: savings account at Avanza, monthly transfer of 3,000 SEK on the 26th into the global
index fund.
? keyword | Avanza index fund transfer
@p23 semantic
Grandma Ingrid lives in Umeå; call her on Sunday evenings.
? identifier | Ingrid
? paraphrase | When should I phone my grandmother?
"""
