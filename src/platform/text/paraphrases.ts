import { stemLanguage, type StemLanguage } from './stemming.js';

/**
 * A small built-in lexicon of the ways visitors say what documents say otherwise, per language, in
 * the form of the owner's synonyms (one group a line, "cost = price = fee"): the keyword search
 * adds the group's other terms to a question naming one of them (knowledge/search-query.ts), and
 * the no-model answer counts a question word as held by a text holding another term of its group
 * (chat/answer-words.ts). Unlike the owner's synonyms, a lexicon word the agent's knowledge holds
 * nowhere, nor any other term of its group, stays a word the knowledge does not know.
 *
 * Kept to pairs that mean the same in any business's documents (no domain terms, which are the
 * owner's to add), and to the forms of irregular English verbs that a stemmer does not join
 * ("wrote", "written": "write"), leaving out those that are also other words ("left", "saw",
 * "found"). A few kilobytes, read on the first question.
 */
const LEXICON: Record<StemLanguage, string> = {
  en: `
cost = price = fee = charge = pricing
free = free of charge = no charge = at no cost
help = support = assistance
website = web site = site
visitor = traffic = hits
buy = purchase
refund = money back = reimbursement
cancel = terminate
sign up = register = create an account
log in = sign in = login
get in touch = contact
broken = defective = faulty = damaged
guarantee = warranty
opening hours = opening times = business hours
book = reserve = reservation = booking
ship = deliver = delivery
bill = invoice
remove = delete = erase = wipe
change = modify = alter
begin = start
start over = restart = start again
home = house = household
take part = took part = participate
staff = employee = personnel
time off = vacation = holiday = annual leave
turn into = convert
annually = yearly = per year
get back = recover = restore
several = multiple
finish = end
at most = maximum
at least = minimum
how long = length
how big = size
how fast = speed = performance
how often = frequency
phone = telephone
email = e-mail
cheap = inexpensive = low cost
big = large = huge
small = little = tiny
fast = quick
choose = select = pick
show = display
answer = reply = response
error = mistake
problem = issue
fix = repair
need = require = requirement
allowed = permitted
write = wrote = written
take = took = taken
become = became
give = gave = given
buy = bought
send = sent
pay = paid
make = made
begin = began = begun
choose = chose = chosen
break = broke = broken
forget = forgot = forgotten
lose = lost
keep = kept
sell = sold
tell = told
think = thought
bring = brought
build = built
catch = caught
drive = drove = driven
grow = grew = grown
hold = held
run = ran
speak = spoke = spoken
teach = taught
throw = threw = thrown
understand = understood
wear = wore = worn
win = won
spend = spent
go = went = gone
`,
  es: `
precio = coste = costo = tarifa
gratis = gratuito = sin coste
ayuda = soporte = asistencia
sitio = sitio web = web
comprar = adquirir
borrar = eliminar
empezar = comenzar = iniciar
`,
  fr: `
prix = coût = tarif = frais
gratuit = sans frais
aide = assistance = support
site = site web
acheter = commander
supprimer = effacer
commencer = débuter
`,
  de: `
preis = kosten = gebühr
kostenlos = gratis = umsonst
hilfe = unterstützung = support
website = webseite = seite
kaufen = bestellen
löschen = entfernen
beginnen = anfangen = starten
`,
  it: `
prezzo = costo = tariffa
gratis = gratuito = senza costi
aiuto = assistenza = supporto
sito = sito web
comprare = acquistare
eliminare = cancellare
iniziare = cominciare
`,
  pt: `
preço = custo = tarifa
grátis = gratuito = sem custo
ajuda = suporte = assistência
site = website = sítio
comprar = adquirir
apagar = excluir = eliminar
começar = iniciar
`,
  nl: `
prijs = kosten = tarief
gratis = kosteloos
hulp = ondersteuning = support
website = webpagina = site
kopen = bestellen
verwijderen = wissen
beginnen = starten
`,
};

const groups = new Map<StemLanguage, readonly string[]>();

/** The lexicon's groups for an agent's language (`auto`, null and unknown: English), one a line as the owner's synonyms are written. */
export function lexiconSynonyms(language: string | null | undefined): readonly string[] {
  const lang = stemLanguage(language);
  let lines = groups.get(lang);
  if (!lines) {
    lines = LEXICON[lang]
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    groups.set(lang, lines);
  }
  return lines;
}
