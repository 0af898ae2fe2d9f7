import { measureAnswerRate } from "./server/answer-rate.js";
console.log(JSON.stringify(await measureAnswerRate(50)));
