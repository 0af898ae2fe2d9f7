export {
  type ElicitationParams,
  elicitationQuestion,
  elicitResult,
  type UrlElicitationAnnotation,
  urlElicitationKeyword,
} from "./elicitation-question.js";
export { elicitationCapabilities, withElicitations } from "./with-elicitations.js";
