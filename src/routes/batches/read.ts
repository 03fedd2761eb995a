import * as v from "valibot";
import { ok, streamJson } from "../../http/envelope";
import { IdPath } from "../../http/fields";
import { defineRoute } from "../../http/route";
import { siteSettings } from "../../http/site";
import { fields, readerFields } from "../../http/validation";
import { pageHeaders } from "../../http/wp-core";
import { listBatches, readBatch } from "../../wallet/batch-reads";
import { BatchAnswer, batchRecord } from "../../wallet/rules";
import { BatchListParams } from "./schemas";

export const readBatchRoute = defineRoute(
  {
    path: "/batches/{id}",
    method: "GET",
    operationId: "readBatch",
    summary: "One batch, its status and its entries",
    auth: "admin",
    access: "read",
    params: fields(IdPath),
    errors: ["batch_not_found"],
    data: BatchAnswer,
  },
  async (c, { id }) => {
    const found = await readBatch(c.var.service, id);
    const site = siteSettings(c);
    return ok(c, 200, "Batch retrieved", batchRecord(found, site));
  },
);

export const listBatchesRoute = defineRoute(
  {
    path: "/batches",
    method: "GET",
    operationId: "listBatches",
    summary: "The batches with an entry of a user, newest first",
    auth: "admin",
    access: "read",
    params: readerFields(BatchListParams),
    errors: ["invalid_input", "user_not_found"],
    data: v.array(BatchAnswer),
  },
  async (c, q) => {
    const { batches, total } = await listBatches(c.var.service, {
      userId: q.user_id,
      page: q.page,
      perPage: q.per_page,
    });
    const site = siteSettings(c);
    return streamJson(
      c,
      "Batches retrieved",
      batches,
      (b) => batchRecord(b, site),
      pageHeaders(c, total, q.page, q.per_page),
    );
  },
);
