"""Website text for the benchmarks: what small businesses of many kinds publish, written for this bench.

Each business has a few pages of plain sentences (hours, prices, lead times, areas, policies, contact
details, what is and is not offered) and a few questions a visitor would ask. The DSTC corpora used by
the retrieval and quality benchmarks are read at run time from ../shared/eval and never copied here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BusinessText:
    kind: str
    name: str
    pages: dict[str, list[str]]  # path -> sentences
    questions: tuple[str, ...]

    @property
    def sentences(self) -> list[str]:
        return [s for page in self.pages.values() for s in page]

    def ingest(self, host: str) -> None:
        """Load the pages as website sources through the rules and the built-in extractor, indexed once
        (the business's schema must be active)."""
        from apps.facts.extraction.builtin import BuiltinExtractor
        from apps.facts.models import SourceKind
        from apps.facts.services import source_ingest
        from apps.facts.signals import topics_batched

        with topics_batched():
            for path, sentences in self.pages.items():
                source_ingest(
                    kind=SourceKind.WEBSITE,
                    ref=f"https://{host}{path}",
                    content=" ".join(sentences),
                    extractor=BuiltinExtractor(),
                )


BUSINESSES: tuple[BusinessText, ...] = (
    BusinessText(
        kind="bakery",
        name="Sunny Bakery",
        pages={
            "/": [
                "Sunny Bakery bakes fresh bread every morning in the heart of Millbrook.",
                "We are open Monday to Friday from 7 AM to 3 PM.",
                "On Saturdays we open from 8 AM to 1 PM.",
                "We are closed on Sundays and public holidays.",
                "Call us on 555-0142 or write to hello@sunnybakery.example.",
            ],
            "/menu": [
                "A sourdough loaf is $8.50.",
                "Croissants are $3.20 each or $17 for six.",
                "Rye bread is $7 a loaf.",
                "Our cinnamon buns cost $4.",
                "Gluten-free bread is baked on Tuesdays and Fridays only.",
                "We do not offer vegan cakes.",
            ],
            "/cakes": [
                "Wedding cakes start at $250.",
                "We need 4 weeks notice for wedding cakes.",
                "Birthday cakes need 3 days notice.",
                "A tasting session costs $25 and is deducted from your order.",
            ],
            "/delivery": [
                "We deliver within 10 miles of the bakery.",
                "Delivery is free on orders over $50, otherwise it costs $5.",
                "We accept Visa, Mastercard and cash.",
                "Parking is available behind the shop.",
            ],
        },
        questions=(
            "How much is a sourdough loaf?",
            "Are you open on Saturday?",
            "How much notice do you need for a wedding cake?",
            "Do you deliver to Oakfield, it's about 8 miles away?",
            "Can I pay with Amex?",
            "Do you have vegan cakes?",
        ),
    ),
    BusinessText(
        kind="dentist",
        name="Bright Smiles Dental",
        pages={
            "/": [
                "Bright Smiles Dental is a family practice at 48 Harbour Road.",
                "The clinic is open Monday to Thursday, 8 AM to 5 PM, and Friday from 8 AM to 1 PM.",
                "Emergency appointments are available the same day.",
                "Our phone number is 555-0188.",
            ],
            "/prices": [
                "A check-up and clean costs $95.",
                "Teeth whitening costs $299.",
                "A filling starts at $140.",
                "Children under 12 are seen for free on our family plan.",
                "Payment plans are available for treatments over $500.",
            ],
            "/patients": [
                "We accept Delta Dental and Cigna insurance.",
                "New patients should arrive 15 minutes early to fill in forms.",
                "Cancellations need 24 hours notice or a $30 fee applies.",
                "We do not offer sedation dentistry.",
                "Free parking is available in the clinic car park.",
            ],
        },
        questions=(
            "How much is teeth whitening?",
            "Do you take Cigna?",
            "Are you open Friday afternoon?",
            "What happens if I cancel late?",
            "Do you do sedation?",
        ),
    ),
    BusinessText(
        kind="plumber",
        name="Rapid Flow Plumbing",
        pages={
            "/": [
                "Rapid Flow Plumbing serves homes and businesses across Eastvale.",
                "We work Monday to Saturday from 7 AM to 7 PM.",
                "A 24 hour emergency service is available on 555-0111.",
                "All our plumbers are licensed and insured.",
            ],
            "/services": [
                "We repair leaks, blocked drains, boilers and water heaters.",
                "A call-out fee is $75 and includes the first 30 minutes.",
                "Each extra hour of labour costs $90.",
                "Boiler servicing costs $120.",
                "We do not install gas fireplaces.",
                "Quotes for bathroom refits are free.",
            ],
            "/area": [
                "We cover a 25 mile radius around Eastvale.",
                "Emergency call-outs after 9 PM cost $150.",
                "We accept cash, bank transfer and all major cards.",
                "Every repair comes with a 12 month guarantee.",
            ],
        },
        questions=(
            "How much is a call out?",
            "Do you come out at night?",
            "Can you service my boiler and what does it cost?",
            "Do you install gas fireplaces?",
            "Is there a guarantee on repairs?",
        ),
    ),
    BusinessText(
        kind="hotel",
        name="Harbour View Guest House",
        pages={
            "/": [
                "Harbour View Guest House has 12 rooms overlooking the old harbour.",
                "Check-in is from 3 PM to 9 PM and check-out is by 11 AM.",
                "Breakfast is served from 7:30 AM to 10 AM and is included in the room rate.",
                "Free Wi-Fi is available in all rooms.",
            ],
            "/rooms": [
                "A double room costs $140 per night.",
                "A single room costs $95 per night.",
                "The family suite sleeps four and costs $220 per night.",
                "Children under 5 stay free.",
                "Pets are not allowed in the rooms.",
            ],
            "/policies": [
                "Free cancellation is possible up to 48 hours before arrival.",
                "Parking costs $10 per day.",
                "The guest house is a 10 minute walk from the train station.",
                "Smoking is not allowed anywhere in the building.",
                "Late check-out until 1 PM costs $25.",
            ],
        },
        questions=(
            "What time is check in?",
            "Is breakfast included?",
            "Can I bring my dog?",
            "How much is parking?",
            "How far is the train station?",
            "What does the family suite cost?",
        ),
    ),
    BusinessText(
        kind="bike shop",
        name="Spoke & Chain Cycles",
        pages={
            "/": [
                "Spoke & Chain Cycles sells and repairs bikes in Riverside.",
                "The shop is open Tuesday to Saturday, 9 AM to 6 PM.",
                "We sell Trek and Specialized bikes.",
            ],
            "/workshop": [
                "A basic service costs $65.",
                "A full service costs $140 and takes 2 days.",
                "Puncture repairs cost $15 while you wait.",
                "We do not repair e-bike motors.",
                "Book a service at least 3 days in advance in spring.",
            ],
            "/rentals": [
                "Bike rental is $30 per day or $120 per week.",
                "Helmets are included free with every rental.",
                "A $200 deposit is required for rentals.",
                "Rentals must be returned by 5 PM.",
                "We offer 10% off for students with a valid card.",
            ],
        },
        questions=(
            "How much is a full service?",
            "Do you fix e-bike motors?",
            "How much is it to rent a bike for a week?",
            "Is a helmet included?",
            "Do you sell Cannondale?",
        ),
    ),
    BusinessText(
        kind="yoga studio",
        name="Still Water Yoga",
        pages={
            "/": [
                "Still Water Yoga offers small classes for every level.",
                "Classes run Monday to Friday at 7 AM, 12:30 PM and 6 PM.",
                "Weekend classes are at 9 AM on Saturday and Sunday.",
            ],
            "/prices": [
                "A drop-in class costs $20.",
                "A 10 class pass costs $170 and is valid for 3 months.",
                "Unlimited monthly membership is $120.",
                "Your first class is free.",
                "Mats can be rented for $2.",
            ],
            "/info": [
                "Please arrive 10 minutes before class.",
                "Classes are limited to 14 people.",
                "Cancel at least 12 hours before class to keep your credit.",
                "Hot yoga is not offered.",
                "Private sessions cost $80 per hour.",
            ],
        },
        questions=(
            "How much is a drop in class?",
            "Is the first class free?",
            "Do you do hot yoga?",
            "Do I need to bring a mat?",
            "When are the weekend classes?",
        ),
    ),
    BusinessText(
        kind="restaurant",
        name="Olive & Thyme Kitchen",
        pages={
            "/": [
                "Olive & Thyme Kitchen serves Mediterranean food in Old Town.",
                "We are open Tuesday to Sunday from 12 PM to 10 PM.",
                "The kitchen closes at 9:30 PM.",
                "We are closed on Mondays.",
            ],
            "/menu": [
                "The lunch menu costs $18 for two courses.",
                "Most main courses are between $19 and $32.",
                "We have vegetarian and vegan options on every menu.",
                "All our meat is halal.",
                "We cannot guarantee a nut-free kitchen.",
            ],
            "/bookings": [
                "Tables can be booked online or on 555-0170.",
                "Groups of 8 or more pay a $10 deposit per person.",
                "A 12.5% service charge is added for groups of 6 or more.",
                "Private dining for up to 24 guests is available.",
                "Dogs are welcome on the terrace.",
            ],
        },
        questions=(
            "Are you open on Monday?",
            "Is your meat halal?",
            "Do you have vegan food?",
            "Is there a deposit for a group of 10?",
            "Can I bring my dog?",
        ),
    ),
    BusinessText(
        kind="hair salon",
        name="Studio Nine Hair",
        pages={
            "/": [
                "Studio Nine Hair is a salon on Queen Street.",
                "We are open Tuesday to Saturday, 9 AM to 7 PM, and until 8 PM on Thursdays.",
                "Book online or call 555-0199.",
            ],
            "/prices": [
                "A women's cut and blow dry costs $65.",
                "A men's cut costs $35.",
                "Full colour starts at $95.",
                "Balayage starts at $160.",
                "Children's cuts under 10 cost $20.",
            ],
            "/policies": [
                "A patch test is required 48 hours before any colour service.",
                "Late arrivals of more than 15 minutes may need to rebook.",
                "We ask for 24 hours notice to cancel.",
                "We do not offer hair extensions.",
                "Gift vouchers are available in any amount.",
            ],
        },
        questions=(
            "How much is a men's haircut?",
            "Do I need a patch test before colouring?",
            "Are you open late on Thursday?",
            "Do you do extensions?",
            "Can I buy a gift voucher?",
        ),
    ),
    BusinessText(
        kind="vet",
        name="Meadowbank Veterinary Clinic",
        pages={
            "/": [
                "Meadowbank Veterinary Clinic cares for cats, dogs and small pets.",
                "Opening hours are Monday to Friday 8 AM to 6:30 PM and Saturday 9 AM to 12 PM.",
                "Out of hours emergencies are handled by Vets Now on 555-0123.",
            ],
            "/prices": [
                "A consultation costs $58.",
                "Annual vaccinations for a dog cost $72.",
                "Cat neutering costs $110.",
                "Microchipping costs $25.",
                "Our pet health plan costs $16 a month and includes vaccinations.",
            ],
            "/info": [
                "We do not treat horses or farm animals.",
                "Repeat prescriptions need 48 hours notice.",
                "Payment is due at the time of treatment.",
                "We accept all major pet insurers.",
            ],
        },
        questions=(
            "How much is a consultation?",
            "Do you treat horses?",
            "What does microchipping cost?",
            "How much notice do you need for a repeat prescription?",
            "Are you open Saturday afternoon?",
        ),
    ),
    BusinessText(
        kind="garage",
        name="Northside Auto Care",
        pages={
            "/": [
                "Northside Auto Care services and repairs all makes of car.",
                "The garage is open Monday to Friday 8 AM to 5:30 PM.",
                "A free courtesy car is available if booked in advance.",
            ],
            "/services": [
                "An MOT test costs $54.85.",
                "An interim service costs $149.",
                "A full service costs $249.",
                "Tyre fitting is included when you buy tyres from us.",
                "We do not work on motorcycles.",
                "Diagnostic checks cost $45.",
            ],
            "/info": [
                "Cars should be dropped off by 9 AM.",
                "We offer a 12 month parts and labour warranty.",
                "We collect cars within 5 miles of the garage for free.",
                "Electric vehicles are serviced on Wednesdays only.",
            ],
        },
        questions=(
            "How much is an MOT?",
            "Do you repair motorbikes?",
            "Can I get a courtesy car?",
            "Do you service electric cars?",
            "What time do I need to drop the car off?",
        ),
    ),
    BusinessText(
        kind="florist",
        name="Petal & Stem Florist",
        pages={
            "/": [
                "Petal & Stem is an independent florist on Market Square.",
                "The shop is open Monday to Saturday, 8:30 AM to 5:30 PM.",
            ],
            "/flowers": [
                "Hand-tied bouquets start at $35.",
                "A dozen red roses cost $60.",
                "Wedding flowers need at least 8 weeks notice.",
                "Sympathy wreaths start at $85.",
                "We do not sell artificial flowers.",
            ],
            "/delivery": [
                "Same day delivery is available for orders placed before 1 PM.",
                "Local delivery costs $7.95.",
                "We deliver within a 15 mile radius.",
                "Sunday delivery is not available.",
            ],
        },
        questions=(
            "How much are a dozen roses?",
            "Can you deliver today?",
            "Do you deliver on Sunday?",
            "How much notice for wedding flowers?",
            "Do you sell fake flowers?",
        ),
    ),
    BusinessText(
        kind="accountant",
        name="Ledger Lane Accountants",
        pages={
            "/": [
                "Ledger Lane Accountants helps sole traders and small companies.",
                "The office is open Monday to Friday, 9 AM to 5 PM.",
                "The first consultation is free and lasts 30 minutes.",
            ],
            "/fees": [
                "Self assessment tax returns cost $250.",
                "Bookkeeping starts at $150 per month.",
                "Payroll costs $8 per employee per month.",
                "Annual accounts for limited companies start at $900.",
            ],
            "/info": [
                "Documents for tax returns must reach us by 31 December.",
                "We do not offer financial investment advice.",
                "Meetings can be held in person or by video call.",
                "Fees can be paid monthly by direct debit.",
            ],
        },
        questions=(
            "How much does a tax return cost?",
            "Is the first meeting free?",
            "Can we meet on video?",
            "Do you give investment advice?",
            "When do you need my documents?",
        ),
    ),
)


def all_sentences() -> list[tuple[BusinessText, str, str]]:
    """(business, page path, sentence) for every sentence, business by business."""
    return [(b, path, s) for b in BUSINESSES for path, page in b.pages.items() for s in page]
