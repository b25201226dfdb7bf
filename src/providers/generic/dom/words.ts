// The words booking sites use for one idea, in the common languages of booking sites: English,
// Spanish, Italian, German, French and Portuguese. Each list is one idea; `phrase` (driver/text.ts) makes a pattern
// of lists that matches a whole word or phrase (letters of any script count as word letters, so
// "disponibilità" ends where it should), with or without its accents. Month and weekday names are
// not here: they come from Intl (src/driver/text.ts), as do the trip words (one way, return).

import { phrase } from '../../../driver/text.ts';

/** An English pattern, or any of the lists' words (the same idea in the other languages). */
export function either(english: RegExp, ...others: ReadonlyArray<readonly string[]>): RegExp {
  return new RegExp(`(?:${english.source})|${phrase(...others).source}`, 'iu');
}

/** Field concepts (search and guest forms), beyond the English the rules already hold. */
export const FIELD_WORDS = {
  city: ['ciudad', 'localidad', 'città', 'località', 'stadt', 'ort', 'ville', 'lieu', 'cidade', 'localidade'],
  date: ['fecha', 'día', 'data', 'giorno', 'datum', 'tag', 'jour', 'dia', 'quando', 'cuándo', 'wann', 'quand'],
  time: ['hora', 'ora', 'orario', 'horario', 'horário', 'uhrzeit', 'zeit', 'heure'],
  people: ['personas', 'persone', 'personen', 'personnes', 'pessoas', 'comensales', 'coperti', 'ospiti', 'invitados', 'gäste', 'convives', 'couverts', 'commensali', 'número de personas', 'numero di persone', 'anzahl personen', 'nombre de personnes'],
  adults: ['adultos', 'adulti', 'erwachsene', 'adultes', 'huéspedes', 'hóspedes', 'viajeros', 'viaggiatori', 'reisende', 'voyageurs', 'viajantes', 'pasajeros', 'passeggeri', 'passagiere', 'passagers', 'passageiros'],
  checkIn: ['llegada', 'entrada', 'arrivo', 'anreise', 'arrivée', 'chegada', 'check-in'],
  checkOut: ['salida', 'partenza', 'abreise', 'départ', 'saída', 'partida', 'check-out'],
  hotel: ['alojamiento', 'establecimiento', 'albergo', 'alloggio', 'struttura', 'unterkunft', 'hébergement', 'établissement', 'hôtel', 'alojamento', 'estabelecimento'],
  restaurant: ['restaurante', 'ristorante'],
  event: ['evento', 'eventos', 'eventi', 'veranstaltung', 'veranstaltungen', 'événement', 'événements', 'artistas', 'artisti', 'künstler', 'artistes', 'espectáculo', 'spettacolo', 'experiencia', 'esperienza', 'erlebnis', 'expérience', 'experiência', 'experience', 'actividad', 'attività', 'aktivität', 'activité', 'atividade', 'tour'],
  tickets: ['entradas', 'biglietti', 'karten', 'tickets', 'billets', 'bilhetes', 'ingressos', 'cantidad', 'quantità', 'anzahl', 'quantité', 'quantidade'],
  email: ['correo', 'correo electrónico', 'posta elettronica', 'courriel', 'adresse e-mail', 'mail'],
  tel: ['teléfono', 'telefono', 'telefon', 'téléphone', 'telefone', 'móvil', 'cellulare', 'handy', 'portable', 'celular', 'telemóvel'],
  givenName: ['nombre', 'nome', 'vorname', 'prénom', 'primeiro nome'],
  familyName: ['apellido', 'apellidos', 'cognome', 'nachname', 'familienname', 'nom de famille', 'nom', 'sobrenome', 'apelido'],
  fullName: ['nombre completo', 'nombre y apellidos', 'nome completo', 'nome e cognome', 'vollständiger name', 'vor- und nachname', 'nom complet', 'nom et prénom'],
  birth: ['nacimiento', 'nascita', 'geburtsdatum', 'geburt', 'naissance', 'nascimento'],
  passport: ['pasaporte', 'passaporto', 'reisepass', 'passeport', 'passaporte'],
  // A flight's airports and its two days ("Origen", "Von", "Fecha de ida", "Rückflug").
  origin: ['origen', 'desde', 'origine', 'partenza da', 'von', 'abflughafen', 'abflugort', 'départ de', 'au départ de', 'aéroport de départ', 'origem', 'partida de'],
  destination: ['destino', 'hacia', 'destinazione', 'arrivo a', 'nach', 'ziel', 'zielflughafen', 'reiseziel', 'destination', 'arrivée', 'aéroport d\'arrivée'],
  outbound: ['ida', 'salida', 'andata', 'partenza', 'hinflug', 'hinreise', 'abflug', 'aller', 'départ', 'partida'],
  inbound: ['vuelta', 'regreso', 'ritorno', 'rückflug', 'rückreise', 'retour', 'volta', 'regresso'],
  flight: ['vuelo', 'volo', 'flug', 'vol', 'voo', 'aerolínea', 'compañía aérea', 'compagnia aerea', 'fluggesellschaft', 'compagnie aérienne', 'companhia aérea', 'ruta', 'strecke', 'itinéraire', 'rota', 'trayecto', 'tratta'],
} as const;

/** Controls: what sends a search, what goes on, what goes back. */
export const CONTROL_WORDS = {
  search: ['buscar', 'busca', 'cerca', 'cercare', 'suchen', 'rechercher', 'recherche', 'pesquisar', 'procurar', 'comprobar', 'verifica', 'prüfen', 'vérifier', 'verificar', 'disponibilidad', 'disponibilità', 'verfügbarkeit', 'disponibilité', 'disponibilidade', 'mostrar', 'mostra', 'anzeigen', 'afficher', 'ver'],
  onward: ['continuar', 'continua', 'continuare', 'weiter', 'continuer', 'avanti', 'siguiente', 'suivant', 'próximo', 'seguinte', 'prenota', 'prenotare', 'reservar', 'buchen', 'réserver', 'confirmar', 'conferma', 'confermare', 'bestätigen', 'confirmer', 'pagar', 'paga', 'pagare', 'bezahlen', 'zahlen', 'payer', 'comprar', 'acquista', 'kaufen', 'acheter', 'zur kasse', 'procedi', 'proceder', 'fortfahren', 'valider', 'enviar', 'invia', 'absenden', 'envoyer', 'jetzt buchen', 'reservieren'],
  back: ['modificar', 'modifica', 'ändern', 'modifier', 'atrás', 'indietro', 'zurück', 'retour', 'volver', 'voltar', 'cancelar', 'annulla', 'abbrechen', 'annuler', 'editar', 'bearbeiten'],
  pay: ['pagar', 'paga', 'pagare', 'bezahlen', 'zahlen', 'payer', 'pagamento', 'pago', 'paiement', 'zahlung', 'kasse', 'caja', 'caisse', 'cassa', 'caixa'],
} as const;

/** Required agreements to tick, and the boxes to leave alone (marketing, upsells). */
export const CONSENT_WORDS = {
  agree: ['acepto', 'aceptar', 'accetto', 'accetta', 'akzeptiere', 'akzeptieren', 'zustimmen', 'einverstanden', "j'accepte", 'accepte', 'aceito', 'aceitar', 'condiciones', 'condizioni', 'bedingungen', 'agb', 'conditions générales', 'termos', 'términos', 'termini'],
  required: ['obligatorio', 'obligatoria', 'obbligatorio', 'obbligatoria', 'erforderlich', 'pflichtfeld', 'obligatoire', 'obrigatório', 'obrigatória'],
  leave: ['boletín', 'ofertas', 'offerte', 'angebote', 'offres', 'promociones', 'promozioni', 'werbung', 'seguro', 'assicurazione', 'versicherung', 'assurance', 'novità', 'neuigkeiten', 'nouveautés', 'novidades'],
} as const;

/** A page's words that nothing is available. */
export const NONE_PHRASES = [
  'no hay disponibilidad', 'sin disponibilidad', 'no disponible', 'agotado',
  'nessuna disponibilità', 'non disponibile', 'esaurito', 'tutto esaurito',
  'keine verfügbarkeit', 'nicht verfügbar', 'ausgebucht', 'ausverkauft',
  'aucune disponibilité', 'non disponible', 'épuisé',
  'sem disponibilidade', 'indisponível', 'esgotado', 'lotado',
] as const;

/** What stands over the page (overlays.ts): a consent box and its most private answer, an upgrade offered on the way on and the answer that keeps what was chosen. */
export const OVERLAY_WORDS = {
  consent: ['privacidad', 'datenschutz', 'confidentialité', 'vie privée', 'privacidade', 'consentimiento', 'consenso', 'einwilligung', 'consentement', 'consentimento'],
  privateChoice: ['rechazar todo', 'rechazar todas', 'rifiuta tutto', 'rifiuta tutti', 'alle ablehnen', 'tout refuser', 'rejeitar tudo', 'recusar tudo', 'solo necesarias', 'solo las necesarias', 'solo necessari', 'nur notwendige', 'nur erforderliche', 'nécessaires uniquement', 'strictement nécessaires', 'apenas necessários', 'apenas essenciais'],
  anyChoice: ['aceptar', 'accetta', 'akzeptieren', 'accepter', 'aceitar', 'de acuerdo', "d'accord", 'einverstanden'],
  close: ['cerrar', 'chiudi', 'schließen', 'fermer', 'fechar', 'no, gracias', 'no grazie', 'nein danke', 'non merci', 'não, obrigado'],
  upsell: ['mejorar', 'migliora', 'migliorare', 'upgraden', 'améliorer', 'melhorar', 'seguro', 'assicurazione', 'versicherung', 'assurance', 'equipaje', 'bagaglio', 'gepäck', 'bagage', 'bagagem'],
  keep: ['mantener', 'conservar', 'mantieni', 'mantenere', 'behalten', 'garder', 'conserver', 'manter', 'no, gracias', 'no grazie', 'nein danke', 'non merci', 'não, obrigado', 'continuar sin', 'continua senza', 'weiter ohne', 'continuer sans', 'continuar sem'],
} as const;
