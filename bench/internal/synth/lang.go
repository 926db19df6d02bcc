package synth

// lang holds what a supplier writing in one language puts on an invoice:
// labels, phrases, month names and the pools fictitious parties are drawn
// from. All companies, people, addresses and bank identifiers are invented.
type lang struct {
	code string

	title     []string // "RECHNUNG", "INVOICE"
	number    []string // invoice number labels
	date      []string
	due       []string
	customer  []string
	po        []string // purchase order labels
	billTo    []string
	colPos    string
	colDesc   string
	colQty    string
	colPrice  string
	colAmount string
	subtotal  []string
	tax       []string // with %s for the rate
	taxZero   []string // tax line on a reverse-charge invoice
	total     []string
	amountDue []string
	bank      string
	terms     []string // with %s for the due date
	termsDays []string // with %d for days
	poNote    []string
	reverse   []string // reverse-charge remarks
	bankNew   []string // bank-detail change notices, %s = new IBAN
	greeting  []string
	closing   []string
	footer    []string // registry lines, %s = a number

	months     [12]string
	dateStyles []dateStyle
	numStyles  []numStyle
	currencies []weighted // currency codes
	taxRates   []string   // "19", "7", "20", "8,1"
	iban       string     // country prefix
	ibanLen    int        // digits after the check digits

	surnames []string
	trades   []string
	forms    []string
	streets  []string
	cities   []string
	items    []string
	units    []string
}

type weighted struct {
	v string
	w int
}

var langs = []*lang{en, de, fr, es, nl, it}

var en = &lang{
	code:      "en",
	title:     []string{"INVOICE", "TAX INVOICE", "Invoice", "SALES INVOICE"},
	number:    []string{"Invoice No.:", "Invoice Number:", "Invoice #:", "Inv. No.:"},
	date:      []string{"Invoice Date:", "Date:", "Date of Issue:"},
	due:       []string{"Due Date:", "Payment Due:", "Due:"},
	customer:  []string{"Customer No.:", "Account No.:", "Customer ID:"},
	po:        []string{"PO Number:", "Purchase Order:", "Your PO:", "P.O. No.:"},
	billTo:    []string{"Bill To:", "Invoice To:", "Sold To:", "Customer:"},
	colPos:    "Line",
	colDesc:   "Description",
	colQty:    "Qty",
	colPrice:  "Unit Price",
	colAmount: "Amount",
	subtotal:  []string{"Subtotal", "Net Total", "Total excluding VAT"},
	tax:       []string{"VAT @ %s%%", "VAT %s%%", "Sales Tax %s%%", "Tax (%s%%)"},
	taxZero:   []string{"VAT 0% (reverse charge)", "VAT", "Tax"},
	total:     []string{"Total", "Invoice Total", "Total including VAT", "TOTAL"},
	amountDue: []string{"AMOUNT DUE", "Balance Due", "Please Pay"},
	bank:      "Bank",
	terms: []string{
		"Payment due by %s. Please quote the invoice number as your payment reference.",
		"Please remit payment on or before %s.",
		"Terms: payment in full by %s, no deductions.",
	},
	termsDays: []string{"Payment terms: %d days net.", "Terms: Net %d."},
	poNote:    []string{"Please match this invoice against your purchase order before approval.", "All deliveries made under the purchase order referenced above."},
	reverse: []string{
		"Reverse charge: customer to account for VAT to HMRC (VAT Act 1994, s.55A).",
		"Reverse charge - VAT to be accounted for by the recipient (Art. 196 Directive 2006/112/EC).",
		"Zero-rated supply: VAT to be accounted for by the customer.",
	},
	bankNew: []string{
		"PLEASE NOTE OUR NEW BANK DETAILS: with effect from this invoice, payments must be made to %s. Payments to our former account will no longer be accepted.",
		"Important: our bank account has changed. Please update your records and pay to %s.",
	},
	greeting: []string{"Thank you for your business.", "We appreciate your prompt payment.", ""},
	closing:  []string{"Kind regards,", "Yours faithfully,", "With thanks,"},
	footer:   []string{"Registered in England and Wales, company no. %s.", "Company registration no. %s.", "EIN %s"},
	months:   [12]string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"},
	dateStyles: []dateStyle{
		dsDMonY, dsDMonY, dsSlashDMY, dsISO,
	},
	numStyles:  []numStyle{nsEN},
	currencies: []weighted{{"GBP", 4}, {"USD", 4}, {"EUR", 2}, {"JPY", 1}, {"BHD", 1}, {"CHF", 1}},
	taxRates:   []string{"20", "20", "5", "10"},
	iban:       "GB",
	ibanLen:    18,
	surnames:   []string{"Harrowgate", "Pennine", "Lakeshore", "Ashworth", "Kingsbury", "Whitmore", "Calder", "Bramley", "Thornton", "Greyfield", "Northgate", "Redcliffe"},
	trades:     []string{"Consulting", "Freight Services", "Lab Supply", "Engineering", "Print Works", "Facilities", "Catering", "Software", "Plumbing & Heating", "Office Supplies"},
	forms:      []string{"Ltd", "LLC", "Inc.", "plc", "LLP"},
	streets:    []string{"Bridge Street", "Station Road", "High Street", "Mill Lane", "Clybourn Ave", "Market Place", "Church Road", "Victoria Street"},
	cities:     []string{"Harrogate HG1 2AB", "Leeds LS1 4DY", "Chicago, IL 60614", "Wakefield WF2 7AW", "Manchester M1 3HU", "Boston, MA 02110", "York YO1 7HH", "Austin, TX 78701"},
	items: []string{
		"Operations strategy workshop (on site)", "Travel and subsistence (at cost)", "Nitrile gloves, medium, 100/box",
		"Pipette tips 1000uL, rack of 96", "Monthly software licence, 25 seats", "Server maintenance, March",
		"Delivery and handling", "A4 copier paper, 80 gsm, 5 reams", "Consultancy hours", "Annual support contract",
		"Replacement filter cartridge", "Site survey and report", "Cleaning services - monthly contract", "Stainless shaft, ground, 12 mm",
	},
	units: []string{"ea", "hrs", "days", "box", "pk", ""},
}

var de = &lang{
	code:      "de",
	title:     []string{"RECHNUNG", "Rechnung", "R E C H N U N G"},
	number:    []string{"Rechnungsnummer:", "Rechnungs-Nr.:", "Rechnung Nr.", "Beleg-Nr.:"},
	date:      []string{"Rechnungsdatum:", "Datum:", "Belegdatum:"},
	due:       []string{"Fällig am:", "Zahlbar bis:", "Fälligkeit:"},
	customer:  []string{"Kundennummer:", "Kunden-Nr.:", "Debitor:"},
	po:        []string{"Bestellnummer:", "Ihre Bestellung:", "Bestell-Nr.:", "Auftragsnummer:"},
	billTo:    []string{"Rechnungsempfänger:", "An:", "Kunde:"},
	colPos:    "Pos.",
	colDesc:   "Bezeichnung",
	colQty:    "Menge",
	colPrice:  "Einzelpreis",
	colAmount: "Gesamtpreis",
	subtotal:  []string{"Summe netto", "Nettobetrag", "Zwischensumme"},
	tax:       []string{"zzgl. %s %% MwSt.", "USt. %s %%", "MwSt. %s%%", "Umsatzsteuer %s %%"},
	taxZero:   []string{"Umsatzsteuer", "USt. 0 %"},
	total:     []string{"Gesamtbetrag", "Rechnungsbetrag", "Endbetrag", "Summe brutto"},
	amountDue: []string{"Zahlbetrag", "Zu zahlen"},
	bank:      "Bankverbindung",
	terms: []string{
		"Zahlbar bis %s ohne Abzug.",
		"Bitte überweisen Sie den Betrag bis zum %s unter Angabe der Rechnungsnummer.",
		"Zahlungsziel: %s, netto Kasse.",
	},
	termsDays: []string{"Zahlbar innerhalb von %d Tagen ohne Abzug.", "Zahlungsziel %d Tage netto."},
	poNote:    []string{"Bitte geben Sie bei Zahlung die Rechnungsnummer und Ihre Bestellnummer an.", "Lieferung gemäß Ihrer Bestellung."},
	reverse: []string{
		"Steuerschuldnerschaft des Leistungsempfängers gemäß § 13b Abs. 2 Nr. 4 UStG.",
		"Innergemeinschaftliche Lieferung, steuerfrei nach § 4 Nr. 1b UStG.",
		"Gemäß § 19 UStG wird keine Umsatzsteuer berechnet.",
	},
	bankNew: []string{
		"WICHTIG – NEUE BANKVERBINDUNG: Bitte beachten Sie, dass sich unsere Bankverbindung geändert hat. Zahlungen ab sofort nur noch auf %s.",
		"Bitte beachten Sie unsere neue Bankverbindung: %s. Das bisherige Konto wird aufgelöst.",
	},
	greeting: []string{"Vielen Dank für Ihren Auftrag.", "Wir danken für Ihr Vertrauen.", ""},
	closing:  []string{"Mit freundlichen Grüßen", "Freundliche Grüße"},
	footer:   []string{"Amtsgericht Nürnberg HRB %s", "Registergericht München HRB %s", "Steuernummer %s"},
	months:   [12]string{"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"},
	dateStyles: []dateStyle{
		dsDotDMY, dsDotDMY, dsDotDMY, dsDMonDotY, dsISO,
	},
	numStyles:  []numStyle{nsEU},
	currencies: []weighted{{"EUR", 8}, {"CHF", 2}},
	taxRates:   []string{"19", "19", "19", "7"},
	iban:       "DE",
	ibanLen:    18,
	surnames:   []string{"Müller & Söhne", "Hofmann", "Schneider", "Krämer", "Weißgerber", "Becker", "Hansen", "Fischer", "Zimmermann", "Schäfer", "Braun", "Vogel"},
	trades:     []string{"Haustechnik", "Metallbau", "Logistik", "Elektro", "Trockenbau", "Druckerei", "Gebäudereinigung", "Maschinenbau", "Holzbau", "IT-Service"},
	forms:      []string{"GmbH", "AG", "GmbH & Co. KG", "e.K.", "KG", "UG (haftungsbeschränkt)"},
	streets:    []string{"Gewerbering", "Hauptstraße", "Industriestraße", "Bahnhofstraße", "Am Hafen", "Lindenweg", "Schillerstraße", "Mühlgasse"},
	cities:     []string{"90451 Nürnberg", "90763 Fürth", "68159 Mannheim", "80331 München", "20095 Hamburg", "8004 Zürich", "50667 Köln", "70173 Stuttgart"},
	items: []string{
		"Gas-Brennwerttherme 24 kW inkl. Zubehör", "Abgasleitung DN 80/125, Systemset", "Monteurstunden", "Entsorgung Altgerät",
		"Anfahrtspauschale", "Abgehängte Decke, Mineralfaser", "Revisionsöffnungen 30 x 30 cm", "Baustelleneinrichtung",
		"Transport Nürnberg – Hamburg", "Wartung Druckluftanlage", "Flyer DIN A5, 4/4-farbig", "Softwarepflege Quartal",
		"Edelstahlgeländer, gebürstet", "Kleinmaterial",
	},
	units: []string{"Stk", "Std", "psch", "m²", "lfm", "kg"},
}

var fr = &lang{
	code:      "fr",
	title:     []string{"FACTURE", "Facture", "FACTURE N°"},
	number:    []string{"N° de facture :", "Facture n° :", "Numéro :"},
	date:      []string{"Date de facture :", "Date :", "Émise le :"},
	due:       []string{"Date d'échéance :", "Échéance :", "À régler avant le :"},
	customer:  []string{"Code client :", "N° client :", "Réf. client :"},
	po:        []string{"Bon de commande :", "Votre commande :", "N° de commande :"},
	billTo:    []string{"Facturé à :", "Client :", "Destinataire :"},
	colPos:    "N°",
	colDesc:   "Désignation",
	colQty:    "Qté",
	colPrice:  "P.U. HT",
	colAmount: "Montant HT",
	subtotal:  []string{"Total HT", "Sous-total HT", "Montant HT"},
	tax:       []string{"TVA %s %%", "TVA (%s %%)", "T.V.A. %s%%"},
	taxZero:   []string{"TVA", "TVA 0 %"},
	total:     []string{"Total TTC", "Montant TTC", "TOTAL TTC"},
	amountDue: []string{"NET À PAYER", "Reste à payer", "Net à payer"},
	bank:      "Coordonnées bancaires",
	terms: []string{
		"Règlement par virement au plus tard le %s.",
		"Paiement à réception, au plus tard le %s. Pas d'escompte pour paiement anticipé.",
		"Échéance de paiement : %s.",
	},
	termsDays: []string{"Paiement à %d jours date de facture.", "Règlement à %d jours fin de mois."},
	poNote:    []string{"Merci de rappeler la référence de votre bon de commande lors du règlement.", "Livraison conforme à votre bon de commande."},
	reverse: []string{
		"Autoliquidation – TVA due par le preneur (article 283-2 du CGI).",
		"Exonération de TVA, article 262 ter I du CGI (livraison intracommunautaire).",
		"TVA non applicable, article 293 B du CGI.",
	},
	bankNew: []string{
		"IMPORTANT – NOUVELLES COORDONNÉES BANCAIRES : merci de noter que tout règlement doit désormais être effectué sur le compte %s.",
		"Attention : nos coordonnées bancaires ont changé. Nouveau compte : %s.",
	},
	greeting: []string{"Nous vous remercions de votre confiance.", "Merci pour votre commande.", ""},
	closing:  []string{"Cordialement,", "Salutations distinguées,"},
	footer:   []string{"RCS Lyon %s", "SIRET %s", "SAS au capital de 50 000 € – RCS Paris %s"},
	months:   [12]string{"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"},
	dateStyles: []dateStyle{
		dsSlashDMY, dsSlashDMY, dsDMonY, dsISO,
	},
	numStyles:  []numStyle{nsFR, nsFRnb, nsEU},
	currencies: []weighted{{"EUR", 8}, {"CHF", 2}},
	taxRates:   []string{"20", "20", "10", "5,5"},
	iban:       "FR",
	ibanLen:    23,
	surnames:   []string{"Delorme", "Garnier et Fils", "Marchand", "Rousseau", "Lefèvre", "Bonnet", "Chevalier", "Moreau", "Dubois", "Girard"},
	trades:     []string{"Imprimerie", "Transports", "Menuiserie", "Conseil", "Électricité", "Nettoyage", "Traiteur", "Informatique", "Plomberie"},
	forms:      []string{"SARL", "SAS", "SA", "EURL", "Sàrl"},
	streets:    []string{"rue des Tanneurs", "place Bellecour", "avenue Jean Jaurès", "boulevard Haussmann", "rue de la République", "chemin des Vignes"},
	cities:     []string{"69002 Lyon", "75009 Paris", "74000 Annecy", "1204 Genève", "13001 Marseille", "33000 Bordeaux", "31000 Toulouse"},
	items: []string{
		"Brochures A4 16 pages quadri", "Cartes de visite (boîtes de 250)", "Chemises à rabats pelliculées", "Transport Annecy → Lyon",
		"Surcharge gazole", "Prestation de conseil (jour)", "Maintenance informatique mensuelle", "Pose de menuiseries aluminium",
		"Frais de déplacement", "Nettoyage des locaux – mars", "Licence logicielle annuelle", "Fournitures diverses",
	},
	units: []string{"u", "h", "j", "m²", "forfait", ""},
}

var es = &lang{
	code:      "es",
	title:     []string{"FACTURA", "Factura", "FACTURA ORDINARIA"},
	number:    []string{"Número de factura:", "Factura n.º:", "Nº Factura:"},
	date:      []string{"Fecha de factura:", "Fecha:", "Fecha de emisión:"},
	due:       []string{"Fecha de vencimiento:", "Vencimiento:", "Vence:"},
	customer:  []string{"Código cliente:", "N.º cliente:", "Cliente n.º:"},
	po:        []string{"N.º de pedido:", "Su pedido:", "Pedido de compra:"},
	billTo:    []string{"Cliente:", "Facturar a:", "Destinatario:"},
	colPos:    "Ref.",
	colDesc:   "Descripción",
	colQty:    "Cant.",
	colPrice:  "Precio ud.",
	colAmount: "Importe",
	subtotal:  []string{"Base imponible", "Subtotal", "Importe neto"},
	tax:       []string{"IVA %s %%", "IVA (%s%%)", "I.V.A. %s %%"},
	taxZero:   []string{"IVA", "IVA 0 %"},
	total:     []string{"Total a pagar", "Total factura", "TOTAL"},
	amountDue: []string{"Importe a pagar", "Total a abonar"},
	bank:      "Datos bancarios",
	terms: []string{
		"Forma de pago: transferencia bancaria antes del %s.",
		"Rogamos efectúen el pago antes del %s indicando el número de factura.",
		"Vencimiento del pago: %s.",
	},
	termsDays: []string{"Pago a %d días fecha factura.", "Condiciones de pago: %d días."},
	poNote:    []string{"Indiquen el número de pedido en el pago.", "Suministro según su pedido de compra."},
	reverse: []string{
		"Inversión del sujeto pasivo (art. 84.Uno.2º f) LIVA).",
		"Operación exenta de IVA según art. 20.Uno.9º LIVA.",
		"Entrega intracomunitaria exenta (art. 25 LIVA).",
	},
	bankNew: []string{
		"AVISO IMPORTANTE: hemos cambiado de entidad bancaria. Les rogamos realicen los pagos a partir de ahora en la cuenta %s.",
		"Les comunicamos nuestros nuevos datos bancarios: %s.",
	},
	greeting: []string{"Gracias por su confianza.", "Agradecemos su pedido.", ""},
	closing:  []string{"Atentamente,", "Un saludo,"},
	footer:   []string{"Inscrita en el Registro Mercantil de Zaragoza, Hoja Z-%s.", "CIF B%s", "Registro Mercantil de Madrid, tomo %s"},
	months:   [12]string{"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"},
	dateStyles: []dateStyle{
		dsSlashDMY, dsSlashDMY, dsDeMonDeY, dsISO,
	},
	numStyles:  []numStyle{nsEU},
	currencies: []weighted{{"EUR", 8}, {"USD", 2}},
	taxRates:   []string{"21", "21", "10", "4"},
	iban:       "ES",
	ibanLen:    20,
	surnames:   []string{"Ebro", "del Cantábrico", "Martínez", "García", "Navarro", "Iberia", "Levante", "Castilla", "Galicia", "Ruiz"},
	trades:     []string{"Suministros Industriales", "Construcciones", "Transportes", "Asesoría", "Instalaciones Eléctricas", "Limpiezas", "Informática", "Formación"},
	forms:      []string{"S.L.", "S.A.", "S.L.U.", "S.L.P."},
	streets:    []string{"Calle Mayor", "Avenida del Puerto", "Polígono Industrial Malpica, Calle E", "Paseo de la Castellana", "Calle Alcalá", "Gran Vía"},
	cities:     []string{"50016 Zaragoza", "39700 Castro Urdiales", "28046 Madrid", "08001 Barcelona", "46001 Valencia", "41001 Sevilla", "Ciudad de Panamá"},
	items: []string{
		"Rodamiento 6205-2RS", "Correa trapezoidal SPA 1250", "Motorreductor 1,5 kW, 1:40", "Grasa alimentaria NSF H1",
		"Portes", "Horas de asesoría fiscal", "Curso de formación (jornada)", "Instalación de cuadro eléctrico",
		"Mantenimiento mensual", "Licencia de software anual", "Material de oficina", "Desplazamiento técnico",
	},
	units: []string{"ud", "h", "kg", "m", ""},
}

var nl = &lang{
	code:      "nl",
	title:     []string{"FACTUUR", "Factuur", "F A C T U U R"},
	number:    []string{"Factuurnummer:", "Factuurnr.:", "Nummer:"},
	date:      []string{"Factuurdatum:", "Datum:"},
	due:       []string{"Vervaldatum:", "Te betalen voor:", "Vervaldag:"},
	customer:  []string{"Klantnummer:", "Debiteurnr.:", "Klantnr.:"},
	po:        []string{"Inkoopordernummer:", "Uw ordernummer:", "Uw referentie:"},
	billTo:    []string{"Aan:", "Factuuradres:", "Klant:"},
	colPos:    "Nr.",
	colDesc:   "Omschrijving",
	colQty:    "Aantal",
	colPrice:  "Prijs",
	colAmount: "Bedrag",
	subtotal:  []string{"Subtotaal", "Totaal excl. BTW", "Netto bedrag"},
	tax:       []string{"BTW %s%%", "BTW %s %%", "Btw (%s%%)"},
	taxZero:   []string{"BTW verlegd", "BTW 0%"},
	total:     []string{"Totaal te betalen", "Totaal incl. BTW", "Totaal"},
	amountDue: []string{"Te betalen", "Openstaand bedrag"},
	bank:      "Bank",
	terms: []string{
		"Wij verzoeken u het totaalbedrag vóór %s over te maken onder vermelding van het factuurnummer.",
		"Betaling uiterlijk %s.",
		"Gelieve te betalen voor %s.",
	},
	termsDays: []string{"Betaling binnen %d dagen na factuurdatum.", "Betalingstermijn: %d dagen."},
	poNote:    []string{"Vermeld bij betaling het factuurnummer en uw inkoopordernummer.", "Geleverd conform uw inkooporder."},
	reverse: []string{
		"BTW verlegd op grond van artikel 12, lid 5 van de Wet op de omzetbelasting 1968.",
		"Intracommunautaire levering, 0% BTW (art. 138 Richtlijn 2006/112/EG).",
		"Btw verlegd naar de afnemer.",
	},
	bankNew: []string{
		"LET OP: ons rekeningnummer is gewijzigd. Gelieve voortaan te betalen op %s.",
		"Wij hebben een nieuw rekeningnummer: %s. Betalingen op het oude rekeningnummer worden niet meer verwerkt.",
	},
	greeting: []string{"Hartelijk dank voor uw opdracht.", "Bedankt voor uw bestelling.", ""},
	closing:  []string{"Met vriendelijke groet,", "Hoogachtend,"},
	footer:   []string{"KvK %s", "Ondernemingsnummer BE 0%s", "KvK-nummer %s"},
	months:   [12]string{"januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober", "november", "december"},
	dateStyles: []dateStyle{
		dsDashDMY, dsDashDMY, dsDMonY, dsISO,
	},
	numStyles:  []numStyle{nsEU},
	currencies: []weighted{{"EUR", 10}},
	taxRates:   []string{"21", "21", "9"},
	iban:       "NL",
	ibanLen:    14,
	surnames:   []string{"Van der Meulen", "Hendriks & Zn.", "De Vries", "Jansen", "Bakker", "Visser", "Smit", "Mulder", "De Graaf", "Peeters"},
	trades:     []string{"Installatietechniek", "Bouwbedrijf", "Drukkerij", "Transport", "Schoonmaak", "Automatisering", "Tuinaanleg", "Advies"},
	forms:      []string{"B.V.", "BV", "N.V.", "VOF"},
	streets:    []string{"Edisonstraat", "Langestraat", "Industrieweg", "Kerkstraat", "Stationsplein", "Havenkade"},
	cities:     []string{"3812 PD Amersfoort", "5262 GJ Vught", "3006 AL Rotterdam", "1012 AB Amsterdam", "9000 Gent", "3511 AA Utrecht"},
	items: []string{
		"Periodiek onderhoud koelinstallatie", "Vervangen compressor koelcel", "Koudemiddel R449A (kg)", "Arbeidsuren monteur",
		"Voorrijkosten", "Metselwerk gevel blok A", "Stellen van kozijnen", "Steigerhuur", "Drukwerk folders A5",
		"Hosting en beheer", "Schoonmaak kantoor", "Adviesuren",
	},
	units: []string{"st", "uur", "post", "m²", ""},
}

var it = &lang{
	code:      "it",
	title:     []string{"FATTURA", "Fattura", "FATTURA DI VENDITA"},
	number:    []string{"Fattura N.", "Numero fattura:", "N. documento:"},
	date:      []string{"Data:", "Data fattura:", "Data documento:"},
	due:       []string{"Scadenza:", "Data scadenza:", "Pagamento entro:"},
	customer:  []string{"Codice cliente:", "Cod. cliente:"},
	po:        []string{"Ordine d'acquisto n.:", "Vs. ordine:", "Rif. ordine:"},
	billTo:    []string{"Spett.le", "Cliente:", "Destinatario:"},
	colPos:    "Pos.",
	colDesc:   "Descrizione",
	colQty:    "Q.tà",
	colPrice:  "Prezzo",
	colAmount: "Importo",
	subtotal:  []string{"Imponibile", "Totale imponibile", "Subtotale"},
	tax:       []string{"IVA %s%%", "IVA %s %%", "I.V.A. (%s%%)"},
	taxZero:   []string{"IVA", "IVA 0%"},
	total:     []string{"Totale fattura", "Totale documento", "TOTALE"},
	amountDue: []string{"Netto a pagare", "Totale da pagare"},
	bank:      "Coordinate bancarie",
	terms: []string{
		"Pagamento: bonifico bancario entro il %s.",
		"Si prega di effettuare il pagamento entro il %s.",
		"Scadenza pagamento: %s.",
	},
	termsDays: []string{"Pagamento: bonifico a %d giorni data fattura.", "Pagamento a %d giorni f.m."},
	poNote:    []string{"Si prega di indicare il numero d'ordine nel pagamento.", "Fornitura come da Vs. ordine."},
	reverse: []string{
		"Inversione contabile (reverse charge) ai sensi dell'art. 17, c. 6 DPR 633/72.",
		"Operazione non imponibile art. 41 D.L. 331/93.",
		"Operazione in regime forfettario, senza applicazione dell'IVA.",
	},
	bankNew: []string{
		"ATTENZIONE: Vi comunichiamo le nuove coordinate bancarie. Da oggi i pagamenti vanno effettuati su %s.",
		"Nuove coordinate bancarie: %s. Il conto precedente non è più attivo.",
	},
	greeting: []string{"Grazie per averci scelto.", "Ringraziamo per l'ordine.", ""},
	closing:  []string{"Distinti saluti,", "Cordiali saluti,"},
	footer:   []string{"Capitale sociale € 100.000,00 i.v. – REA MI-%s", "P.IVA %s", "Registro Imprese di Milano %s"},
	months:   [12]string{"gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre", "ottobre", "novembre", "dicembre"},
	dateStyles: []dateStyle{
		dsSlashDMY, dsSlashDMY, dsDMonY, dsISO,
	},
	numStyles:  []numStyle{nsEU},
	currencies: []weighted{{"EUR", 8}, {"CHF", 2}},
	taxRates:   []string{"22", "22", "10", "4"},
	iban:       "IT",
	ibanLen:    23,
	surnames:   []string{"Fontana", "Brianza", "Rossi", "Bianchi", "Colombo", "Ricci", "Marino", "Greco", "Ferrari", "Ticino"},
	trades:     []string{"Meccanica", "Oleodinamica", "Costruzioni", "Trasporti", "Consulenze", "Impianti Elettrici", "Tipografia", "Informatica"},
	forms:      []string{"S.r.l.", "S.p.A.", "S.a.s.", "S.n.c."},
	streets:    []string{"Via per Cesano", "Via Milano", "Corso Italia", "Via Roma", "Viale Monza", "Piazza Garibaldi"},
	cities:     []string{"20833 Giussano (MB)", "20831 Seregno (MB)", "20121 Milano", "6900 Lugano", "10121 Torino", "40121 Bologna"},
	items: []string{
		"Alberi di trasmissione lavorati CNC", "Flange forate DN 80", "Trattamento termico di bonifica", "Trasporto e imballo",
		"Consulenza tecnica (ore)", "Installazione impianto elettrico", "Stampa cataloghi A4", "Manutenzione programmata",
		"Canone software mensile", "Materiale di consumo", "Trasferta tecnico",
	},
	units: []string{"pz", "h", "kg", "m", ""},
}
