/** A schema that uses every field kind the form knows. */
export const bookingSchema = {
  type: "object",
  title: "Book the launch meeting",
  properties: {
    title: { type: "string", title: "Meeting title", minLength: 3, maxLength: 80, default: "Spring launch sync" },
    organiser: { type: "string", format: "email", title: "Organiser's email" },
    agenda: { type: "string", format: "uri", title: "Agenda link", description: "A link to the agenda document." },
    date: { type: "string", format: "date", title: "Date" },
    attendees: { type: "integer", title: "Attendees", minimum: 2, maximum: 12, default: 4 },
    budget: { type: "number", title: "Catering budget (€)", minimum: 0, multipleOf: 0.01 },
    remote: { type: "boolean", title: "Offer a video link", default: true },
    room: { title: "Room", enum: ["Atlas", "Borealis", "Cosmos"] },
    city: { type: "string", title: "Office", enum: ["Berlin", "Lisbon", "Madrid", "Paris", "Rome", "Vienna"] },
    needs: {
      type: "array",
      title: "Equipment",
      items: { enum: ["Projector", "Whiteboard", "Speakerphone"] },
      maxItems: 2,
      uniqueItems: true,
    },
    contact: {
      type: "object",
      title: "On-site contact",
      properties: {
        name: { type: "string", title: "Name" },
        phone: { type: "string", title: "Phone", pattern: "^\\+?[0-9 ]{6,}$", description: "Digits and spaces." },
      },
      required: ["name"],
    },
  },
  required: ["title", "organiser", "date", "attendees", "room", "contact"],
  additionalProperties: false,
};

/** A schema beyond a form (an array of objects), edited as JSON. */
export const lineItemsSchema = {
  type: "object",
  title: "Line items",
  properties: {
    items: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        properties: { sku: { type: "string" }, quantity: { type: "integer", minimum: 1 } },
        required: ["sku", "quantity"],
      },
    },
  },
  required: ["items"],
};
